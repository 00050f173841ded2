/**
 * `troupe list [--graph G] [--status S] [--waiting] [--thread T] [--limit N] [--json]`: troupe's runs,
 * newest first (a thread's oldest first), found by troupe's search attributes when the namespace has
 * them, else by each run's memo.
 */
import { RUN_STATUSES } from '../core/ending/reasons';
import { RUNNING_STATUS, type ListFilter } from '../core/observe/search';
import { listRuns, type RunListing } from '../client/find-runs';
import { booleanFlag, stringFlag, type ParsedArgs } from './args';
import { connectOrExplain } from './connect';
import { err, out, outJson } from './io';

/** Texts of `troupe list`, so tests pin them. */
export const CLI_LIST_TEXTS = {
  badStatus: (s: string) => `--status must be ${RUNNING_STATUS} or one of ${RUN_STATUSES.join(', ')} (got "${s}")`,
  badLimit: (s: string) => `--limit must be a whole number from 1 to 1000 (got "${s}")`,
  none: 'no runs match',
  memoFallback:
    "troupe's search attributes are not registered in this namespace: listed from each run's memo (slower on a busy namespace; see docs/operating.md, \"Finding runs\")",
  header: ['RUN', 'GRAPH', 'STATUS', 'REASON', 'WAITING', 'STARTED'],
} as const;

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  const status = stringFlag(args, 'status');
  if (status !== undefined && status !== RUNNING_STATUS && !(RUN_STATUSES as readonly string[]).includes(status)) {
    err(CLI_LIST_TEXTS.badStatus(status));
    return 1;
  }
  const limitText = stringFlag(args, 'limit') ?? '50';
  const limit = Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    err(CLI_LIST_TEXTS.badLimit(limitText));
    return 1;
  }
  const graph = stringFlag(args, 'graph');
  const filter: ListFilter = {
    ...(graph !== undefined ? { graph } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(booleanFlag(args, 'waiting') ? { waiting: true } : {}),
    ...(stringFlag(args, 'thread') !== undefined ? { thread: stringFlag(args, 'thread') } : {}),
  };
  const conn = await connectOrExplain();
  if (!conn) return 1;
  try {
    const list = await listRuns(conn.client, filter, limit);
    if (booleanFlag(args, 'json')) {
      outJson(list.runs);
      return 0;
    }
    if (!list.indexed) err(CLI_LIST_TEXTS.memoFallback);
    if (list.runs.length === 0) out(CLI_LIST_TEXTS.none);
    else out(table(list.runs));
    return 0;
  } finally {
    await conn.close();
  }
}

/** The runs as aligned columns. */
function table(runs: RunListing[]): string {
  const rows = runs.map((r) => [r.workflowId, r.graph ?? '', r.status, r.reason ?? '', r.waiting ? 'yes' : '', r.startTime.replace('T', ' ').slice(0, 19)]);
  const all = [[...CLI_LIST_TEXTS.header], ...rows];
  const widths = CLI_LIST_TEXTS.header.map((_, i) => Math.max(...all.map((row) => row[i].length)));
  return all.map((row) => row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

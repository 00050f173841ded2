/**
 * `troupe run <role.yaml> [--task T] [--id ID] [--json] [--detach] [--plugins file]`:
 * validate, start the run workflow, follow its progress (human waits included, with the command
 * that answers them) and print the result. Exit 0 when completed, 2 for any other final status,
 * 1 for config, usage or connection errors.
 */
import { followRun, startRun, type FollowEvent } from '../client';
import { formatIssue } from '../core/config/issues';
import type { RunResult } from '../core/ending/result';
import { finalLine } from '../core/ending/final-line';
import { loadRoleFile } from '../config-file';
import { booleanFlag, stringFlag, type ParsedArgs } from './args';
import { err, out } from './io';
import { connectOrExplain } from './connect';
import { loadPlugins } from './plugins';
import { RUN_TEXT } from './run-texts';
import { CLI_TEXT } from './texts';

/** Exit code of a finished run. */
export function exitCodeOf(result: RunResult): number {
  return result.status === 'completed' && result.outputValid !== false ? 0 : 2;
}

/** Print one follow event for a human (to stderr when stdout carries JSON). */
export function printEvent(id: string, e: FollowEvent, write: (s: string) => void): void {
  switch (e.kind) {
    case 'step': {
      const s = e.step;
      const preview = s.text.replace(/\s+/g, ' ').slice(0, 100);
      write(RUN_TEXT.step(s.round, s.wave, s.agent, s.promptTokens + s.completionTokens, s.hash, preview));
      for (const t of s.tools ?? []) write(RUN_TEXT.toolCall(t));
      return;
    }
    case 'phase': {
      const st = e.status;
      if (st.phase === 'awaiting_human') for (const r of st.pending) write(RUN_TEXT.awaiting(id, r));
      else if (st.phase === 'paused') write(RUN_TEXT.paused(id, st.pause?.reason));
      return;
    }
    case 'warning':
      write(RUN_TEXT.warning(e.text));
      return;
    default: {
      const never: never = e;
      return never;
    }
  }
}

/** Print the end of a run: the distinct final line, then the final text. */
export function printResult(result: RunResult, write: (s: string) => void): void {
  write('');
  write(finalLine(result));
  if (result.finalText) {
    write('');
    write(result.finalText);
  }
  if (result.outputValid === false && result.outputErrors) {
    write('');
    for (const e of result.outputErrors) write(`output error: ${e}`);
  }
}

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  const file = args.positionals[0];
  const json = booleanFlag(args, 'json');
  const say = json ? err : out;
  const pluginError = loadPlugins(stringFlag(args, 'plugins'));
  if (pluginError) {
    err(pluginError);
    return 1;
  }
  const loaded = loadRoleFile(file);
  for (const e of loaded.errors) err(formatIssue(e));
  if (loaded.errors.length > 0 || !loaded.graph) return 1;
  for (const w of loaded.warnings) err(CLI_TEXT.warning(formatIssue(w)));
  const graph = loaded.graph;
  const task = stringFlag(args, 'task') ?? graph.task;
  if (!task) {
    err(RUN_TEXT.noTask(file));
    return 1;
  }

  const conn = await connectOrExplain();
  if (!conn) return 1;
  try {
    const handle = await startRun(conn.client, {
      role: graph,
      task,
      workflowId: stringFlag(args, 'id'),
      taskQueue: conn.settings.taskQueue,
    });
    say(RUN_TEXT.started(handle.workflowId, conn.settings.taskQueue));
    if (process.env.TROUPE_UI_URL) say(RUN_TEXT.uiLink(process.env.TROUPE_UI_URL, conn.settings.namespace, handle.workflowId));
    if (booleanFlag(args, 'detach')) {
      if (json) out(JSON.stringify({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId }));
      else out(RUN_TEXT.detached(handle.workflowId));
      return 0;
    }
    const result = await followRun(handle, (e) => printEvent(handle.workflowId, e, say));
    if (json) out(JSON.stringify(result));
    else printResult(result, out);
    return exitCodeOf(result);
  } finally {
    await conn.close();
  }
}

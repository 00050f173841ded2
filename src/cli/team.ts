/**
 * `troupe state <id> [--out FILE]`: a closed run's team state as JSON (docs/semantics.md, "Teams
 * that go on"), for `troupe run role.yaml --state FILE`; refused, exit 1, as `--continue` refuses:
 * a running run, one without a RunResult or without a team state.
 */
import { writeFileSync } from 'node:fs';
import { ContinueRefusedError, exportTeamState } from '../client';
import { stringFlag, type ParsedArgs } from './args';
import { connectOrExplain } from './connect';
import { err, out } from './io';
import { CLI_RUN_TEXTS } from './run-texts';
import { CLI_TEXTS } from './texts';

/** Run `troupe state`. */
export async function state(args: ParsedArgs): Promise<number> {
  const id = args.positionals[0];
  const file = stringFlag(args, 'out');
  const conn = await connectOrExplain();
  if (!conn) return 1;
  try {
    const source = await exportTeamState(conn.client, id);
    for (const w of source.warnings) err(CLI_TEXTS.warning(w));
    const text = `${JSON.stringify(source.state, null, 2)}\n`;
    if (file === undefined) out(text.trimEnd());
    else {
      writeFileSync(file, text);
      err(CLI_RUN_TEXTS.stateWritten(id, file, source.state.thread.length));
    }
    return 0;
  } catch (e) {
    if (!(e instanceof ContinueRefusedError)) throw e;
    for (const p of e.problems) err(CLI_RUN_TEXTS.noState(p));
    return 1;
  } finally {
    await conn.close();
  }
}

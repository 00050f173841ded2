/**
 * `troupe run <role.yaml> [--task T] [--continue ID | --state FILE] [--id ID] [--json] [--detach] [--plugins file]`:
 * validate, start the run workflow (or a run that continues a closed one: docs/semantics.md, "Teams that go on"), follow its progress (human waits included, with the command
 * that answers them; a live view on a terminal, timestamped lines on a pipe) and print the result.
 * Exit 0 when completed, 2 for any other final status, 1 for config, usage or connection errors,
 * 130 when Ctrl+C stops following (the run goes on).
 */
import { ContinueRefusedError, followRun, parseStateFile, startRun, webUiLink, type RunHandle } from '../client';
import { readFileSync } from 'node:fs';
import { formatIssue } from '../core/config/issues';
import type { RunResult } from '../core/ending/result';
import type { CompiledGraph } from '../core/graph/types';
import { finalLine } from '../core/ending/final-line';
import { printable } from '../core/text/printable';
import { runIdIssue } from '../core/teams/team-run';
import { loadRoleFile } from '../config-file';
import { booleanFlag, stringFlag, type ParsedArgs } from './args';
import { err, out, outExact, outJson } from './io';
import { connectOrExplain } from './connect';
import { loadPlugins } from './plugins';
import { createFollowView, followMode } from './follow-view';
import { INTERRUPTED_EXIT_CODE, CLI_LIVE_TEXTS } from './live-texts';
import { CLI_RUN_TEXTS } from './run-texts';
import { CLI_TEXTS } from './texts';
import { openRunSpan, type RunSpan } from '../telemetry/tracing';

/** Exit code of a finished run. */
export function exitCodeOf(result: RunResult): number {
  return result.status === 'completed' && result.outputValid !== false ? 0 : 2;
}

/**
 * Follow a run with the view its output calls for (`follow-view.ts`) and print its end; Ctrl+C
 * stops following, says the run goes on and how to see or cancel it, and gives exit code 130.
 */
export async function followAndPrint(handle: RunHandle, json: boolean, root?: RunSpan): Promise<number> {
  const id = handle.workflowId;
  const mode = followMode(json, process.stdout);
  const view = createFollowView(id, mode, { out, err, stream: process.stdout });
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once('SIGINT', onSigint);
  let result: RunResult;
  try {
    // only the live view shows what agents are writing: plain lines and --json get each text once, in its step
    const follow = () => followRun(handle, (e) => view.onEvent(e), { signal: interrupt.signal, liveText: mode === 'live' });
    result = await (root ? root.untraced(follow) : follow());
  } catch (e) {
    view.close();
    if (!interrupt.signal.aborted) throw e;
    err(CLI_LIVE_TEXTS.interrupted(id));
    return INTERRUPTED_EXIT_CODE;
  } finally {
    process.off('SIGINT', onSigint);
  }
  root?.end({ workflowId: id, status: result.status, reason: result.reason });
  view.close(result);
  if (json) outJson(result);
  else printResult(result, out);
  return exitCodeOf(result);
}

/**
 * Print the end of a run: the distinct final line, then the final text. Model text is untrusted: on
 * a terminal the final text is printable; to a pipe it is the run's product (`troupe run … > answer.md`)
 * and goes out exactly, through `writeExact` (docs/cli.md, "What reaches your terminal").
 */
export function printResult(result: RunResult, write: (s: string) => void, terminal = Boolean(process.stdout.isTTY), writeExact: (s: string) => void = outExact): void {
  write('');
  write(finalLine(result));
  if (result.finalText) {
    write('');
    if (terminal) write(printable(result.finalText));
    else writeExact(result.finalText);
  }
  if (result.outputValid === false && result.outputErrors) {
    write('');
    for (const e of result.outputErrors) write(`output error: ${e}`);
  }
}

/** A state file's document (`--state`), read once; or why not. */
function readStateFile(file: string): { ok: true; doc: unknown } | { ok: false; problems: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    return { ok: false, problems: [CLI_RUN_TEXTS.unreadable(file, (e as Error).message)] };
  }
  try {
    return { ok: true, doc: parseStateFile(file, text) };
  } catch (e) {
    if (e instanceof ContinueRefusedError) return { ok: false, problems: e.problems };
    throw e;
  }
}

/**
 * The role a command runs (`troupe run`, `troupe chat`): its `--plugins` loaded, then the file
 * compiled; errors and warnings printed, located. Undefined when it cannot run.
 */
export function loadRoleToRun(file: string, args: ParsedArgs): CompiledGraph | undefined {
  const pluginError = loadPlugins(stringFlag(args, 'plugins'));
  if (pluginError) {
    err(pluginError);
    return undefined;
  }
  const loaded = loadRoleFile(file);
  for (const e of loaded.errors) err(formatIssue(e));
  if (loaded.errors.length > 0 || !loaded.graph) return undefined;
  for (const w of loaded.warnings) err(CLI_TEXTS.warning(formatIssue(w)));
  return loaded.graph;
}

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  const file = args.positionals[0];
  const json = booleanFlag(args, 'json');
  const say = json ? err : out;
  const graph = loadRoleToRun(file, args);
  if (!graph) return 1;
  const continueFrom = stringFlag(args, 'continue');
  const stateFile = stringFlag(args, 'state');
  if (continueFrom !== undefined && stateFile !== undefined) {
    err(CLI_RUN_TEXTS.continueAndState);
    return 1;
  }
  let teamState: unknown;
  if (stateFile !== undefined) {
    // read once, here: the run keeps it in its input and never reads the file (docs/cli.md, "troupe state")
    const read = readStateFile(stateFile);
    if (!read.ok) {
      for (const p of read.problems) err(CLI_RUN_TEXTS.cannotContinue(p));
      return 1;
    }
    teamState = read.doc;
  }
  const continues = continueFrom !== undefined || stateFile !== undefined;
  // a continued run's task is the one given, or none: the team goes on from where it stopped
  const task = continues ? stringFlag(args, 'task') : (stringFlag(args, 'task') ?? graph.task);
  if (!continues && !task) {
    err(CLI_RUN_TEXTS.noTask(file));
    return 1;
  }
  const id = stringFlag(args, 'id');
  const idIssue = id === undefined ? undefined : runIdIssue(id);
  if (idIssue) {
    err(idIssue);
    return 1;
  }

  const conn = await connectOrExplain();
  if (!conn) return 1;
  // the run's root span when the client traces (docs/observability.md, "Traces"): over the start,
  // ended with the run's status when followed to its end, else when the command leaves it
  const root = openRunSpan(graph.name);
  try {
    let handle: Awaited<ReturnType<typeof startRun>>;
    try {
      handle = await root.within(() =>
        startRun(conn.client, {
          role: graph,
          task,
          workflowId: id,
          taskQueue: conn.settings.taskQueue,
          ...(continueFrom !== undefined ? { continueFrom } : {}),
          ...(teamState !== undefined ? { teamState } : {}),
          onWarning: (w) => err(CLI_TEXTS.warning(w)),
        }),
      );
    } catch (e) {
      if (!(e instanceof ContinueRefusedError)) throw e;
      for (const p of e.problems) err(CLI_RUN_TEXTS.cannotContinue(p));
      return 1;
    }
    say(CLI_RUN_TEXTS.started(handle.workflowId, conn.settings.taskQueue));
    if (continues) say(CLI_RUN_TEXTS.continues(continueFrom ?? stateFile!));
    const link = webUiLink(conn.settings, handle.workflowId);
    if (link) say(CLI_RUN_TEXTS.uiLink(link));
    if (booleanFlag(args, 'detach')) {
      if (json) outJson({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId });
      else out(CLI_RUN_TEXTS.detached(handle.workflowId));
      return 0;
    }
    return await followAndPrint(handle, json, root);
  } finally {
    root.end();
    await conn.close();
  }
}

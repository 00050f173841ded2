/**
 * `troupe status|result|transcript <id> [--json]`: read a run through its queries,
 * or its RunResult once finished (`result` waits for it). `troupe status --watch` follows the run
 * to its end like `troupe run` does. `troupe status` shows what each in-flight agent's model call
 * has written so far, read from the run's pending activities (one describe, only while an agent is
 * in flight; `--json`: `inFlight[].partialText`, docs/cli.md). A transcript without steps says so,
 * with the run's end if it has ended.
 */
import { queryStatus, queryTranscript, waitResult, type RunHandle } from '../client';
import { usdSpentText } from '../core/budgets/ledger';
import { statusAndReason } from '../core/ending/final-line';
import type { RunStatusView } from '../core/ending/result';
import { inFlightEntries, type InFlightEntry } from '../core/observe/live';
import { lastLine, printable, tailOf } from '../core/text/printable';
import { readInFlightCalls } from '../client/pending-activities';
import { listRuns } from '../client/find-runs';
import type { TranscriptStep } from '../core/state/state';
import { booleanFlag, stringFlag, type ParsedArgs } from './args';
import { childRuns } from './child-runs';
import { connectOrExplain, withRun } from './connect';
import { err, out, outJson } from './io';
import { exitCodeOf, followAndPrint, printResult } from './run';
import { CLI_RUN_TEXTS } from './run-texts';
import { teamLines } from './plain-lines';

/** A team agent's child run in the parent's status: its position, its agents' text and its pending requests (with its id, which decides them too). */
function printChild(c: { agent: string; status: StatusWithText }): void {
  const s = c.status;
  out(CLI_RUN_TEXTS.childRun(c.agent, s.workflowId, s.phase, s.round, s.wave, s.inFlight.map((e) => e.agent)));
  for (const e of s.inFlight) {
    const line = writingLine(e);
    if (line) out(`  ${line}`);
  }
  for (const r of s.pending) out(`  ${CLI_RUN_TEXTS.awaiting(s.workflowId, r)}`);
}

/** A status with each in-flight agent's model call and the text it has written (what `--json` prints). */
type StatusWithText = Omit<RunStatusView, 'inFlight'> & { inFlight: InFlightEntry[] };

/**
 * `status` with its in-flight agents' text, read from the run's pending activities: one describe,
 * asked only while an agent is in flight. A run that cannot be described shows its agents without text.
 */
async function withText(handle: RunHandle, s: RunStatusView): Promise<StatusWithText> {
  const calls = s.inFlight.length > 0 ? await readInFlightCalls(handle).catch(() => []) : [];
  return { ...s, inFlight: inFlightEntries(s.inFlight, calls) };
}

/** The last line an in-flight agent's model call has written, printable, at most 100 characters from its end. */
function writingLine(e: InFlightEntry): string | undefined {
  const text = e.partialText === undefined ? '' : lastLine(e.partialText);
  return text ? CLI_RUN_TEXTS.writing(e.agent, e.chars ?? 0, tailOf(text, 100)) : undefined;
}

function printStatus(s: StatusWithText, children: Array<{ agent: string; status: StatusWithText }> = []): void {
  out(`run ${s.workflowId}: ${s.phase}${s.final ? ` — ${statusAndReason(s.final)}` : ''}`);
  out(`round ${s.round}, wave ${s.wave}, ${s.steps} steps, active ${(s.activeMs / 1000).toFixed(1)}s`);
  if (s.frontier.length) out(`next wave: ${s.frontier.join(', ')}`);
  if (s.inFlight.length) out(`in flight: ${s.inFlight.map((e) => e.agent).join(', ')}`);
  for (const e of s.inFlight) {
    const line = writingLine(e);
    if (line) out(line);
  }
  for (const [group, n] of Object.entries(s.iterations)) out(`loop ${group}: ${n}`);
  const u = s.usage;
  out(`usage: ${u.totalTokens} tokens (${u.promptTokens} in, ${u.completionTokens} out), ${usdSpentText(u.costUsd)}, ${u.agentCalls} agent calls, ${u.judgeCalls} judge calls${u.toolCalls ? `, ${u.toolCalls.total} tool calls` : ''}`);
  if (s.goal) out(`goal: ${s.goal.status}, turn ${s.goal.turnCount}/${s.goal.maxTurns}, ${(s.goal.elapsedMs / 1000).toFixed(0)}s`);
  if (s.phase === 'paused') out(CLI_RUN_TEXTS.paused(s.workflowId, s.pause?.reason).trim());
  for (const r of s.pending) out(CLI_RUN_TEXTS.awaiting(s.workflowId, r));
  for (const d of s.decisions ?? []) out(CLI_RUN_TEXTS.decision(d));
  for (const [agent, r] of Object.entries(s.latest)) out(`  ${agent} ×${r.count} #${r.hash}: ${printable(r.preview).replace(/\s+/g, ' ').slice(0, 100)}`);
  for (const w of s.warnings) out(CLI_RUN_TEXTS.warning(w));
  for (const c of children) printChild(c);
}

/** `troupe status` (`--watch`: follow the run to its end, exit as `troupe run` does). */
export async function status(args: ParsedArgs): Promise<number> {
  return withRun(args.positionals[0], async (handle) => {
    if (booleanFlag(args, 'watch')) return followAndPrint(handle, booleanFlag(args, 'json'));
    const s = await queryStatus(handle);
    // each child run has pending activities of its own, read from it as the parent's are
    const [shown, children] = await Promise.all([withText(handle, s), childRuns(handle, s).then((all) => Promise.all(all.map(async (c) => ({ agent: c.agent, status: await withText(c.handle, c.status) }))))]);
    if (booleanFlag(args, 'json')) outJson(children.length > 0 ? { ...shown, childRuns: children } : shown);
    else printStatus(shown, children);
    return 0;
  });
}

/** `troupe result` (waits for the run to finish). */
export async function result(args: ParsedArgs): Promise<number> {
  return withRun(args.positionals[0], async (handle) => {
    const r = await waitResult(handle);
    if (booleanFlag(args, 'json')) outJson(r);
    else printResult(r, out);
    return exitCodeOf(r);
  });
}

/**
 * The line a transcript without steps prints: the run has none yet, or recorded none, with its end
 * (the run's own, or the workflow's when it was closed from outside, e.g. terminated).
 */
async function noStepsLine(handle: RunHandle): Promise<string> {
  const { final } = await queryStatus(handle);
  if (final) return CLI_RUN_TEXTS.noStepsRecorded(handle.workflowId, statusAndReason(final));
  const { status } = await handle.describe();
  return status.name === 'RUNNING' ? CLI_RUN_TEXTS.noStepsYet(handle.workflowId) : CLI_RUN_TEXTS.noStepsRecorded(handle.workflowId, CLI_RUN_TEXTS.workflowClosed(status.name));
}

/** `troupe transcript`. */
export async function transcript(args: ParsedArgs): Promise<number> {
  const thread = stringFlag(args, 'thread');
  const id = args.positionals[0];
  if ((thread === undefined) === (id === undefined)) {
    err(CLI_RUN_TEXTS.transcriptOf);
    return 1;
  }
  if (thread !== undefined) return threadTranscript(thread, booleanFlag(args, 'json'));
  return withRun(id, async (handle) => {
    const steps = await queryTranscript(handle);
    if (booleanFlag(args, 'json')) {
      outJson(steps);
      return 0;
    }
    if (steps.length === 0) {
      out(await noStepsLine(handle));
      return 0;
    }
    printSteps(steps);
    return 0;
  });
}

/** A transcript's steps, each with its number, position, hash and tokens, its tools and its text. */
function printSteps(steps: TranscriptStep[]): void {
  for (const s of steps) {
    if (s.decision) {
      out(CLI_RUN_TEXTS.decision(s.decision).trim());
      continue;
    }
    out(`#${s.step} [round ${s.round} · wave ${s.wave}] ${s.agent}${s.kind && s.kind !== 'agent' ? ` (${s.kind})` : ''} #${s.hash} ${s.promptTokens}+${s.completionTokens} tok`);
    for (const line of teamLines(s)) out(line);
    for (const t of s.tools ?? []) out(CLI_RUN_TEXTS.toolCall(t));
    // printable before it is indented: a carriage return becomes a line end that is indented too
    out(printable(s.text).split('\n').map((l) => `    ${l}`).join('\n'));
  }
}

/** `troupe transcript --thread T`: each run of the thread in order, each with a line where it began (docs/semantics.md, "Teams that go on"). */
async function threadTranscript(thread: string, json: boolean): Promise<number> {
  const conn = await connectOrExplain();
  if (!conn) return 1;
  try {
    const { runs } = await listRuns(conn.client, { thread }, 1000);
    if (runs.length === 0) {
      err(CLI_RUN_TEXTS.noThread(thread));
      return 1;
    }
    const all: Array<{ workflowId: string; runId: string; steps: TranscriptStep[] }> = [];
    for (const r of runs) {
      const steps = await queryTranscript(conn.client.workflow.getHandle(r.workflowId, r.runId));
      if (json) all.push({ workflowId: r.workflowId, runId: r.runId, steps });
      else {
        out(CLI_RUN_TEXTS.runBegan(r.workflowId, r.startTime, r.status, r.reason));
        if (steps.length === 0) out(CLI_RUN_TEXTS.noSteps);
        printSteps(steps);
      }
    }
    if (json) outJson(all);
    return 0;
  } finally {
    await conn.close();
  }
}

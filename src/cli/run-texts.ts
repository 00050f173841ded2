/** User-visible texts of the run-time CLI commands (run, worker, status, signals, dev). */
import type { DecisionRecord, PendingRequest } from '../core/humans/requests';
import { ANSWERED_KINDS } from '../core/humans/texts';
import { foldLines, plural, prettyJson } from '../core/text/format';

/** Characters per line of a call's arguments in a request (longer lines fold). */
const ARGUMENT_WIDTH = 100;

/** The tool and arguments of a `tool_call` request, when its payload has them, and whether the model wrote the call as text. */
function toolCallOf(r: PendingRequest): { tool: string; arguments: string; asText: boolean } | undefined {
  const p = r.payload as { tool?: unknown; arguments?: unknown; writtenAsText?: unknown } | undefined;
  return r.kind === 'tool_call' && typeof p?.tool === 'string' && typeof p.arguments === 'string'
    ? { tool: p.tool, arguments: p.arguments, asText: p.writtenAsText === true }
    : undefined;
}

/** `text` on one line: its line breaks and the spaces around them folded to one space. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ');
}

/**
 * What a gate shows, as `troupe status`, the live view and `troupe chat` print it: a gated call's
 * tool and every character of the arguments it will receive, folded at `width`, never cut (they
 * are at most 16 KiB), and the digest that approve and reject name — the digest of exactly what is
 * shown (docs/semantics.md, "Gates"). Empty for a request that shows neither.
 */
export function gateLines(r: PendingRequest, width: number): string[] {
  const lines: string[] = [];
  const call = toolCallOf(r);
  if (call) {
    if (call.asText) lines.push(`the model wrote this call as text in its reply; troupe read it as a call (text_tool_calls: off turns this off)`);
    lines.push(`${call.tool} will receive exactly:`);
    for (const line of foldLines(prettyJson(call.arguments), width)) lines.push(`│ ${line}`);
  }
  if (r.digest) lines.push(`digest:  ${r.digest}`);
  return lines;
}

const DECIDED = { approve: 'approved', reject: 'rejected', answer: 'answered' } as const;

export const CLI_RUN_TEXTS = {
  noTask: (file: string) => `no task: pass --task "..." or set task: in ${file}`,
  continueAndState: 'pass --continue ID or --state FILE, not both',
  continues: (source: string) => `it goes on from ${source}'s team state`,
  transcriptOf: 'pass a run id, or --thread T for every run of a thread',
  stateWritten: (id: string, file: string, entries: number) => `wrote ${id}'s team state to ${file} (${entries} thread entr${entries === 1 ? 'y' : 'ies'}); start from it with: troupe run <role.yaml> --state ${file} --task "..."`,
  noState: (problem: string) => `no team state: ${problem}`,
  noThread: (thread: string) => `no runs in thread ${thread}`,
  runBegan: (id: string, at: string, status: string, reason?: string) => `── run ${id} began ${at.replace('T', ' ').slice(0, 19)} (${status}${reason ? `/${reason}` : ''}) ──`,
  noSteps: '    (no steps)',
  cannotContinue: (problem: string) => `cannot continue: ${problem}`,
  unreadable: (file: string, message: string) => `${file}: cannot read: ${message}`,
  started: (id: string, queue: string) => `started run ${id} on task queue ${queue}`,
  detached: (id: string) => `follow it with: troupe status ${id}  ·  troupe result ${id}`,
  notFound: (id: string) => `no run with id ${id}`,
  /** `troupe transcript` of a run that has not finished a step yet. */
  noStepsYet: (id: string) => `run ${id} has no steps yet`,
  /** `troupe transcript` of a run that ended without a step, with its end (`failed/fatal_error: …`). */
  noStepsRecorded: (id: string, end: string) => `run ${id} recorded no steps (${end})`,
  /** The end of a workflow closed from outside the run (terminated, timed out). */
  workflowClosed: (status: string) => `workflow ${status.toLowerCase().replace(/_/g, ' ')}`,
  step: (round: number, wave: number, agent: string, tokens: number, hash: string, preview: string) =>
    `  [round ${round} · wave ${wave}] ${agent} (${tokens} tok, #${hash}) ${preview}`,
  /** A step's transfer (docs/teams.md, "Handoffs"): `→ tech: the printer is on fire`. */
  handoff: (h: { to: string; message?: string }) => `      → ${h.to}${h.message ? `: ${h.message.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`,
  /** A step whose speaker a selector chose, and how. */
  selected: (s: { attempts: number; fallback?: true }) =>
    s.fallback ? `      (selector fell back to list order after ${s.attempts} attempts)` : `      (selected by the selector${s.attempts > 1 ? ` in ${s.attempts} attempts` : ''})`,
  toolCall: (t: { tool: string; arguments: string; ok: boolean; result: string; durationMs: number }) =>
    `      ${t.ok ? '↳' : '✗'} ${t.tool}(${t.arguments}) ${(t.durationMs / 1000).toFixed(1)}s → ${t.result}`,
  paused: (id: string, reason?: string) => `  ⏸ paused${reason ? ` (${reason})` : ''} — resume with: troupe resume ${id}`,
  awaiting: (id: string, r: PendingRequest) => {
    const who = r.agent ? `${r.agent} ` : '';
    // a summary may quote model text: one line, so it cannot print lines that look like troupe's own
    const lines = [`  ✋ waiting for a human: ${r.id} (${r.kind}) ${who}— ${oneLine(r.summary)}`];
    for (const line of gateLines(r, ARGUMENT_WIDTH)) lines.push(`     ${line}`);
    if (ANSWERED_KINDS.includes(r.kind)) lines.push(`     answer:  troupe answer ${id} "<your answer>" --request ${r.id}`);
    lines.push(`     approve: troupe approve ${id} --request ${r.id} [--note "..."]`);
    lines.push(`     reject:  troupe reject ${id} --request ${r.id} --reason "..."`);
    return lines.join('\n');
  },
  /** A run's warning, on one line (a warning may quote model or tool text). */
  warning: (text: string) => `  ⚠ ${oneLine(text)}`,
  /**
   * A human's decision: which request, what, who and when (status, transcript, follow lines); a
   * refused one says so and why (it decided nothing).
   */
  decision: (d: DecisionRecord) =>
    d.refused !== undefined
      ? `  ⊘ ${d.requestId} (${d.request})${d.agent ? ` ${d.agent}` : ''} ${d.kind} by ${d.by ?? 'an unnamed sender'} at ${d.at} refused: ${d.refused}`
      : `  ${d.kind === 'reject' ? '✗' : '✓'} ${d.requestId} (${d.request})${d.agent ? ` ${d.agent}` : ''} ${DECIDED[d.kind]} by ${d.by ?? 'an unnamed sender'} at ${d.at}${d.text ? ` — ${d.text.replace(/\s+/g, ' ').slice(0, 100)}` : ''}`,
  workerStarted: (address: string, namespace: string, queue: string, build?: { deploymentName: string; buildId: string }) =>
    `troupe worker polling task queue "${queue}" on ${address} (namespace ${namespace})` +
    `${build ? `, build ${build.buildId} of deployment ${build.deploymentName} (runs it starts are pinned to it)` : ''}; Ctrl+C to stop`,
  badLogLevel: (variable: string, value: string, levels: readonly string[]) =>
    `${variable} must be one of ${levels.join(', ')} (any case), not "${value}"`,
  /** The worker's log lines (`worker-log.ts`): `12:04:31 WARN activity callAgent failed (attempt 1, workflow w): why`. */
  log: {
    line: (time: string, level: string, message: string, context: readonly string[], error?: string) =>
      `${time} ${level} ${message}${context.length ? ` (${context.join(', ')})` : ''}${error ? `: ${error}` : ''}`,
    activity: (type: string, local: boolean) => `${local ? 'local activity' : 'activity'} ${type}`,
    attempt: (n: number) => `attempt ${n}`,
    workflow: (id: string) => `workflow ${id}`,
  },
  sent: (what: string, id: string) => `sent ${what} to ${id}`,
  /**
   * A decision and the run's answer to it (`applied to r1: …`, `refused: …`, or sent as a signal to
   * an older worker): what `troupe approve|reject|answer` prints.
   */
  decided: (what: string, request: string | undefined, by: string, id: string, digest: string | undefined, answer: string) =>
    `${what}${request ? ` (${request}${digest ? `, ${digest}` : ''})` : ''} by ${by} to ${id}: ${answer}`,
  /** After a decision on a call the model wrote as text (docs/semantics.md, "Agent calls"). */
  decidedTextCall: (request: string) => `  ${request} is a call the model wrote as text in its reply, not one it made through the tools interface`,
  /** Who decided when neither --by nor the OS names a user. */
  unknownDecider: 'unknown',
  /** A team agent's child run in its parent's `troupe status`. */
  childRun: (agent: string, id: string, phase: string, round: number, wave: number, inFlight: string[]) =>
    `team ${agent}: run ${id}: ${phase}, round ${round}, wave ${wave}${inFlight.length ? `, in flight: ${inFlight.join(', ')}` : ''}`,
  /** `troupe status`: what an in-flight agent's model call has written so far (its last line). */
  writing: (agent: string, chars: number, tail: string) => `  ${agent} is writing (${plural(chars, 'char')}): ${tail}`,
  /** After an answer the run refused because its request is a gate: the commands that decide it. */
  decideGateWith: (id: string, request: string) =>
    `Run it with: troupe approve ${id} --request ${request}   or refuse it with: troupe reject ${id} --request ${request} --reason "..."`,
  choosePending: (id: string, ids: string[]) =>
    `run ${id} has ${ids.length} pending requests (${ids.join(', ')}); name one with --request`,
  badPayload: (message: string) => `--payload must be JSON: ${message}`,
  badSignalType: (type: string) => `signal type "${type}" must match [a-z][a-z0-9_]*`,
  needReason: '--reason is required for reject',
  cancelled: (id: string) => `cancellation requested for ${id}`,
  /** `troupe dev --port|--ui-port` with a value that is no port. */
  devBadPort: (flag: string, value: string) => `--${flag} must be a port number from 1 to 65535, not "${value}"`,
  /** `troupe dev --port|--ui-port` naming a port nothing can listen on (`code`: EADDRINUSE, EACCES, …). */
  devPortUnavailable: (port: number, flag: string, code: string) =>
    code === 'EADDRINUSE'
      ? `port ${port} (--${flag}) is already in use; pass a free one with --${flag} P, or leave --${flag} out to take a free port`
      : `cannot listen on port ${port} (--${flag}): ${code}; pass another with --${flag} P, or leave --${flag} out to take a free port`,
  devSamePort: (port: number) => `--port and --ui-port both name port ${port}; the Temporal server and its Web UI need a port each`,
  /** The run's page in the Temporal Web UI (`client/web-ui.ts`). */
  uiLink: (url: string) => `Web UI: ${url}`,
} as const;

/**
 * Commands that steer a run: pause, resume, stop, cancel, message and signal send signals; approve,
 * reject and answer send the run's decision Updates and print what it did with them (applied and
 * what follows, or refused and why, exit 1). A decision on a gate sends the digest the request
 * showed in the `status` query (docs/semantics.md, "Humans in the loop").
 */
import * as os from 'node:os';
import { decideRequest, queryStatus, sendSignal, type DecisionAnswer, type RequestDecision, type RunHandle, type SignalName } from '../client';
import type { RunStatusView } from '../core/ending/result';
import type { SignalInputs } from '../core/humans/signals';
import type { PendingRequest } from '../core/humans/requests';
import { SIGNAL_TYPE_RE } from '../core/config/schema';
import { stringFlag, type ParsedArgs } from './args';
import { childRuns } from './child-runs';
import { withRun } from './connect';
import { err, out } from './io';
import { CLI_RUN_TEXTS } from './run-texts';

async function send<K extends SignalName>(args: ParsedArgs, name: K, payload?: SignalInputs[K]): Promise<number> {
  const id = args.positionals[0];
  return withRun(id, async (handle) => {
    await sendSignal(handle, name, payload);
    out(CLI_RUN_TEXTS.sent(name, id));
    return 0;
  });
}

/**
 * The request a decision goes to: its id, the run that holds it, the digest it shows (a gate), and
 * whether it is a call the model wrote as text (the decision's line says so again).
 */
interface Target {
  /** Absent when no `--request` was given and the run shows no single pending request: the run says why. */
  id?: string;
  /**
   * Whether the `status` query showed the request. Only then is a `not_open_yet` refusal asked
   * again: the query may have been answered by a workflow task whose retry has not opened it yet.
   */
  seen?: true;
  run: RunHandle;
  digest?: string;
  asText?: true;
}

/** The parts of a pending request a {@link Target} carries. */
function targetOf(request: PendingRequest, run: RunHandle): Target {
  const asText = (request.payload as { writtenAsText?: unknown } | undefined)?.writtenAsText === true;
  return { id: request.id, run, seen: true, ...(request.digest !== undefined ? { digest: request.digest } : {}), ...(asText ? { asText } : {}) };
}

/**
 * The request a decision goes to, as the `status` query shows it: `--request`, or the only pending
 * one, with the digest it shows; a team agent's child run holds it when the parent has none that
 * matches (docs/teams.md, "Nested teams"). Whether the decision may decide it is the run's verdict
 * (its Update's validator), not this one's: a request the run does not show goes to the run as named,
 * which refuses it and says why. An error text only when several child runs have one pending.
 */
async function targetRequest(handle: RunHandle, requested?: string): Promise<Target | { error: string }> {
  const status = await queryStatus(handle);
  const ids = status.pending.map((p) => p.id);
  if ((requested ? !ids.includes(requested) : ids.length === 0) && (status.children?.length ?? 0) > 0) {
    const inChild = await childRequest(handle, status, requested);
    if (inChild) return inChild;
  }
  const request = requested ? status.pending.find((p) => p.id === requested) : status.pending.length === 1 ? status.pending[0] : undefined;
  if (request) return targetOf(request, handle);
  return { ...(requested !== undefined ? { id: requested } : {}), run: handle };
}

/**
 * The request of a child run the decision targets: `requested` in the first child that has it
 * pending, or the only request pending in all of them; undefined when none matches (the parent's
 * verdict then applies), an error when several do.
 */
async function childRequest(handle: RunHandle, status: RunStatusView, requested?: string): Promise<Target | { error: string } | undefined> {
  const children = await childRuns(handle, status);
  const pending = children.flatMap((c) => c.status.pending.map((p) => ({ child: c, request: p })));
  const matching = requested ? pending.filter((p) => p.request.id === requested).slice(0, 1) : pending;
  if (matching.length === 0) return undefined;
  if (matching.length > 1) return { error: CLI_RUN_TEXTS.choosePending(handle.workflowId, matching.map((p) => `${p.request.id} (${p.child.handle.workflowId})`)) };
  const [{ child, request }] = matching;
  return targetOf(request, child.handle);
}

/** Who decides when `--by` is not given: the OS user (the run records it on the decision). */
export function defaultDecider(): string {
  try {
    return os.userInfo().username;
  } catch {
    // no passwd entry (some containers): the environment may still name the user
    return process.env.USER || process.env.USERNAME || CLI_RUN_TEXTS.unknownDecider;
  }
}

/**
 * Send a decision (`what`, given who decides) to the request it targets, as the run's Update, and
 * print the run's answer: applied (and what follows) on stdout, exit 0; refused (and why) on stderr,
 * exit 1 — nothing entered the run's history.
 */
async function decide(args: ParsedArgs, what: (by: string) => RequestDecision) {
  const id = args.positionals[0];
  const by = stringFlag(args, 'by')?.trim() || defaultDecider();
  const decision = what(by);
  const name = decision.kind;
  return withRun(id, async (handle) => {
    const target = await targetRequest(handle, stringFlag(args, 'request'));
    if ('error' in target) {
      err(target.error);
      return 1;
    }
    // with the digest of the request as the query showed it: what this decision decides (gates
    // only, so a worker from before digests, whose requests show none, gets the payload it knows)
    const request = target.id === undefined ? undefined : { id: target.id, digest: target.digest };
    const answered = await decideRequest(target.run, request, decision, target.seen ? {} : { notOpenYetMs: 0 });
    const line = CLI_RUN_TEXTS.decided(name, target.id ?? requestOf(answered), by, target.run.workflowId, name === 'answer' ? undefined : target.digest, answered.text);
    if (answered.outcome === 'refused') {
      err(line);
      const gate = answered.refusal.code === 'answer_to_gate' ? answered.refusal.requestId : undefined;
      if (gate !== undefined) err(CLI_RUN_TEXTS.decideGateWith(target.run.workflowId, gate));
      return 1;
    }
    out(line);
    if (target.asText) out(CLI_RUN_TEXTS.decidedTextCall(target.id as string));
    return 0;
  });
}

/** The request a decision sent without one went to, as the run's answer names it. */
function requestOf(answered: DecisionAnswer): string | undefined {
  return answered.outcome === 'applied' ? answered.decision.requestId : answered.outcome === 'refused' ? answered.refusal.requestId : undefined;
}

export const pause = (a: ParsedArgs) => send(a, 'pause', {});
export const resume = (a: ParsedArgs) => send(a, 'resume', {});
export const stop = (a: ParsedArgs) => send(a, 'stop', stringFlag(a, 'reason') ? { reason: stringFlag(a, 'reason') } : {});

/** `troupe cancel <id>`: cancel the workflow; in-flight calls are aborted (`cancelled/user_abort`). */
export async function cancel(args: ParsedArgs): Promise<number> {
  const id = args.positionals[0];
  return withRun(id, async (handle) => {
    await handle.cancel();
    out(CLI_RUN_TEXTS.cancelled(id));
    return 0;
  });
}

export const approve = (a: ParsedArgs) => decide(a, (by) => ({ kind: 'approve', by, ...(stringFlag(a, 'note') !== undefined ? { note: stringFlag(a, 'note') } : {}) }));

export async function reject(a: ParsedArgs): Promise<number> {
  const reason = stringFlag(a, 'reason');
  if (!reason) {
    err(CLI_RUN_TEXTS.needReason);
    return 1;
  }
  return decide(a, (by) => ({ kind: 'reject', reason, by }));
}

export const answer = (a: ParsedArgs) => decide(a, (by) => ({ kind: 'answer', text: a.positionals[1], by }));

export const message = (a: ParsedArgs) => send(a, 'message', { text: a.positionals[1], ...(stringFlag(a, 'to') ? { to: stringFlag(a, 'to') } : {}) });

/** `troupe signal <id> TYPE [--payload JSON]`: record a signal in the run's ledger. */
export async function signal(args: ParsedArgs): Promise<number> {
  const type = args.positionals[1];
  if (!SIGNAL_TYPE_RE.test(type)) {
    err(CLI_RUN_TEXTS.badSignalType(type));
    return 1;
  }
  const raw = stringFlag(args, 'payload');
  let payload: unknown;
  if (raw !== undefined) {
    try {
      payload = JSON.parse(raw);
    } catch (e) {
      err(CLI_RUN_TEXTS.badPayload((e as Error).message));
      return 1;
    }
  }
  return send(args, 'signal', payload === undefined ? { type } : { type, payload });
}

/**
 * Commands that steer a run through signals: pause, resume, stop, cancel,
 * approve, reject, answer, message, signal. Decisions check the `status` query first and exit 1
 * listing the pending request ids when the target is missing or ambiguous; a decision on a gate
 * sends the digest the request showed (docs/semantics.md, "Humans in the loop").
 */
import * as os from 'node:os';
import { decideRequest, queryStatus, sendSignal, type RequestDecision, type RunHandle, type SignalName } from '../client';
import type { RunStatusView } from '../core/ending/result';
import type { SignalInputs } from '../core/humans/signals';
import { GATE_KINDS, type DecisionKind, type PendingRequest } from '../core/humans/requests';
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
  id: string;
  run: RunHandle;
  digest?: string;
  asText?: true;
}

/** The parts of a pending request a {@link Target} carries. */
function targetOf(request: PendingRequest, run: RunHandle): Target {
  const asText = (request.payload as { writtenAsText?: unknown } | undefined)?.writtenAsText === true;
  return { id: request.id, run, ...(request.digest !== undefined ? { digest: request.digest } : {}), ...(asText ? { asText } : {}) };
}

/**
 * The request a decision targets: `--request`, or the only pending one; else an error text. An
 * answer to a request only approve or reject decide (a gated tool call, `before_exit`) is refused
 * with the commands that do.
 */
async function targetRequest(handle: RunHandle, decision: DecisionKind, requested?: string): Promise<Target | { error: string }> {
  const status = await queryStatus(handle);
  const ids = status.pending.map((p) => p.id);
  // none of the parent's matches: a team agent's child run may hold it (docs/teams.md, "Nested teams")
  if ((requested ? !ids.includes(requested) : ids.length === 0) && (status.children?.length ?? 0) > 0) {
    const inChild = await childRequest(handle, status, decision, requested);
    if (inChild) return inChild;
  }
  const id = requested ?? (ids.length === 1 ? ids[0] : undefined);
  if (requested && !ids.includes(requested)) return { error: CLI_RUN_TEXTS.notPending(handle.workflowId, requested, ids) };
  if (id === undefined) return { error: ids.length === 0 ? CLI_RUN_TEXTS.noPending(handle.workflowId) : CLI_RUN_TEXTS.choosePending(handle.workflowId, ids) };
  const request = status.pending.find((p) => p.id === id);
  const kind = request?.kind;
  if (decision === 'answer' && kind !== undefined && GATE_KINDS.includes(kind)) return { error: CLI_RUN_TEXTS.answerToGate(handle.workflowId, id, kind) };
  return request ? targetOf(request, handle) : { id, run: handle };
}

/**
 * The request of a child run the decision targets: `requested` in the first child that has it
 * pending, or the only request pending in all of them; undefined when none matches (the parent's own
 * error text then applies), an error when several do.
 */
async function childRequest(
  handle: RunHandle,
  status: RunStatusView,
  decision: DecisionKind,
  requested?: string,
): Promise<Target | { error: string } | undefined> {
  const children = await childRuns(handle, status);
  const pending = children.flatMap((c) => c.status.pending.map((p) => ({ child: c, request: p })));
  const matching = requested ? pending.filter((p) => p.request.id === requested).slice(0, 1) : pending;
  if (matching.length === 0) return undefined;
  if (matching.length > 1) return { error: CLI_RUN_TEXTS.choosePending(handle.workflowId, matching.map((p) => `${p.request.id} (${p.child.handle.workflowId})`)) };
  const [{ child, request }] = matching;
  if (decision === 'answer' && GATE_KINDS.includes(request.kind)) return { error: CLI_RUN_TEXTS.answerToGate(child.handle.workflowId, request.id, request.kind) };
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

/** Send a decision (`what`, given who decides) to the request it targets. */
async function decide(args: ParsedArgs, what: (by: string) => RequestDecision) {
  const id = args.positionals[0];
  const by = stringFlag(args, 'by')?.trim() || defaultDecider();
  const decision = what(by);
  const name = decision.kind;
  return withRun(id, async (handle) => {
    const target = await targetRequest(handle, name, stringFlag(args, 'request'));
    if ('error' in target) {
      err(target.error);
      return 1;
    }
    // with the digest of the request as the query showed it: what this decision decides (gates
    // only, so a worker from before digests, whose requests show none, gets the payload it knows)
    await decideRequest(target.run, target, decision);
    out(CLI_RUN_TEXTS.sentDecision(name, target.id, by, target.run.workflowId, name === 'answer' ? undefined : target.digest));
    if (target.asText) out(CLI_RUN_TEXTS.decidedTextCall(target.id));
    return 0;
  });
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

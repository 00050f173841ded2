/**
 * Opening human-in-the-loop requests in the run state (SPEC §7, §11.6): ids `r1, r2, …`, kept in
 * `pending` until a decision names them. Pure.
 */
import type { PendingRequest } from './signals';
import type { RunState } from '../state/state';

export { HITL_SIGNAL_TYPES } from '../llm/builtin-tools';

const KIND_OF: Record<string, PendingRequest['kind']> = {
  need_approval: 'approval',
  need_clarification: 'clarification',
  blocked: 'blocked',
  before_exit: 'before_exit',
};

/** Open a request and add it to `pending`. */
export function openRequest(
  state: RunState,
  req: { kind: string; agent?: string; summary: string; payload?: unknown; now: number },
): PendingRequest {
  state.requestCounter += 1;
  const request: PendingRequest = {
    id: `r${state.requestCounter}`,
    kind: KIND_OF[req.kind] ?? 'approval',
    agent: req.agent,
    summary: req.summary.slice(0, 500),
    since: req.now,
    payload: req.payload,
  };
  state.pending.push(request);
  return request;
}

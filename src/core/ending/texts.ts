/**
 * Texts of how a run ends and of the warnings the run loop records, in one place so tests pin them
 * and the workflow, the status view and the CLI agree.
 */

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}

/** Run-loop texts: stop reasons the loop itself decides, and its warnings. */
export const RUN_END_TEXTS = {
  exit: (agents: string[]) => `exit: ${[...new Set(agents)].join(', ')} took the exit edge`,
  deadEndRound: () => 'dead_end: the next wave is empty and no agent took an exit edge',
  deadEnd: (agent: string, round: number) => `round ${round}: branch of ${agent} ended with no edge to follow`,
  hardCap: (group: string, cap: number) => `max_iterations: loop ${group} reached ${cap}`,
  turnCap: (cap: number) => `max_turns: the team took ${cap} ${cap === 1 ? 'turn' : 'turns'}`,
  userStop: (reason?: string) => `user_stop: stopped by the user${reason ? ` (${reason})` : ''}`,
  userAbort: () => 'user_abort: the workflow was cancelled; in-flight calls were aborted',
  fatal: (agent: string, got: string, message: string) => `fatal_error: agent ${agent}${got}: ${message}`,
  activityFailed: (agent: string, message: string, requestId: string) =>
    `activity_failed: agent ${agent} failed after 3 attempts: ${message}${requestId}`,
  teamFailed: (agent: string, status: string, reasonText: string, workflowId: string) =>
    `team_failed: team agent ${agent} ended ${status} (${reasonText}) in its child run ${workflowId}`,
  judgeFailed: (agent: string, err: unknown) =>
    `judge for ${agent} failed; converged counts as false for this result (${errorMessage(err)})`,
  unanswered: (ids: string[]) =>
    `the run ended while ${ids.length === 1 ? `request ${ids[0]} was` : `requests ${ids.join(', ')} were`} still waiting for a human (listed as unanswered in the result)`,
  prepareFailed: (message: string) => `fatal_error: ${message}`,
  carriedAtStart:
    'fatal_error: the start input carries run state (input.carried), which only a run continuing as new may pass on; start the run with a graph and a task only',
  callLost: (label: string, n: number, max: number) =>
    `${label}: every attempt was lost with its worker (no heartbeat); dispatched again (${n} of ${max})`,
  compactionFailed: (agent: string, n: number) =>
    `compaction for ${agent} failed (${n} in a row); older turns were dropped instead`,
  compactionBreaker: (n: number) => `compaction_circuit_breaker: ${n} consecutive compaction failures`,
  truncated: (agent: string, maxTokens: number | undefined) =>
    `truncated_output: ${agent}'s reply was still cut at max_tokens${maxTokens !== undefined ? ` (${maxTokens})` : ''} after one continuation; ` +
    `raise max_tokens (model.max_tokens, or agents.${agent}.model.max_tokens), or set on_truncated: accept to keep cut replies`,
  windowExceeded: (agent: string, tokens: number, window: number) =>
    `token_window_exceeded: ${agent}'s prompt needs ~${tokens} tokens, more than its context_window ${window} allows`,
  malformedSignal: (name: string, detail: string) => `ignored malformed ${name} signal: ${detail}`,
} as const;

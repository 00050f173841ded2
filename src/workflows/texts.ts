/**
 * User-visible texts the workflow produces (warnings and stop texts), in one place so tests pin them.
 */
function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}

export const TEXTS = {
  judgeFailed: (agent: string, err: unknown) =>
    `judge for ${agent} failed after 3 attempts; converged counts as false for this result (${errorMessage(err)})`,
  deadEnd: (agent: string, round: number) => `round ${round}: branch of ${agent} ended with no edge to follow`,
  deadEndRound: () => 'dead_end: the next wave is empty and no agent took an exit edge',
  exit: (agents: string[]) => `exit: ${[...new Set(agents)].join(', ')} took the exit edge`,
  hardCap: (group: string, cap: number) => `max_iterations: loop ${group} reached ${cap}`,
  requestSummary: (agent: string, type: string) => `${agent} asked for ${type.replace(/_/g, ' ')}`,
  compactionFailed: (agent: string, n: number) =>
    `compaction for ${agent} failed (${n} in a row); older turns were dropped instead`,
  compactionBreaker: (n: number) => `compaction_circuit_breaker: ${n} consecutive compaction failures`,
  windowExceeded: (agent: string, tokens: number, window: number) =>
    `token_window_exceeded: ${agent}'s prompt needs ~${tokens} tokens, more than its context_window ${window} allows`,
  userStop: (reason?: string) => `user_stop: stopped by the user${reason ? ` (${reason})` : ''}`,
  userAbort: () => 'user_abort: the workflow was cancelled; in-flight calls were aborted',
  malformedSignal: (name: string, detail: string) => `ignored malformed ${name} signal: ${detail}`,
  beforeExitSummary: (agents: string, preview: string) => `approve the final result of ${agents}: ${preview}`,
};

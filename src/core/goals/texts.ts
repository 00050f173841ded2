/**
 * Every text of the goal room, in one place so tests pin them: what goes into the goal's state and
 * the run's result (stop reasons, history details), what its tool's events record, and the prompts.
 */

/** Whole seconds, as the goal texts print them: integer division by 1000 (9_000_000 ms → 9000). */
export function goalSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The goal's texts. */
export const GOAL_TEXTS = {
  set: (objective: string) => `Goal set: ${objective}`,
  autoContinue: (turn: number, max: number) => `Turn ${turn}/${max}`,
  turnLimit: (turns: number, max: number) => `Auto-continue turn limit reached (${turns}/${max})`,
  durationLimit: (elapsedMs: number, maxMs: number) =>
    `Duration limit reached (${goalSeconds(elapsedMs)}s / ${goalSeconds(maxMs)}s)`,
  neverReported: (limit: string) => `${limit}, and no agent ever reported on the goal with the goal tool`,
  completedFallback: 'Goal completed',
  blockedFallback: 'Goal blocked',
  /** History entries, stop reasons and warnings of the `goal` tool's events. */
  events: {
    statusChanged: (status: string, reason?: string) => `Status changed to ${status}${reason ? `: ${reason}` : ''}`,
    objectiveUpdated: (objective: string) => `Objective updated: ${objective.slice(0, 100)}`,
    evidenceAdded: (evidence: string) => `Evidence: ${evidence.slice(0, 200)}`,
    resumed: 'Status changed to active: resumed by user',
    completedStop: (evidence: string) => `Goal completed: ${clip(evidence, 200)}`,
    blockedStop: (reason: string) => `Goal blocked: ${clip(reason, 200)}`,
    pausedStop: (reason?: string) => (reason ? `Goal paused: ${clip(reason, 200)}` : 'Goal paused via goal tool'),
    errors: {
      status: 'update_status needs status active, completed, blocked or paused',
      evidence: (what: string) => `${what} needs non-empty evidence`,
      reason: 'update_status blocked needs a non-empty reason',
      objective: 'update_objective needs a non-empty objective',
    },
    ignored: (agent: string, error: string) => `ignored goal event from ${agent}: ${error}`,
  },
  /** The fixed lines of the `<goal_framework>` and `<goal_continuation>` prompts. */
  prompts: {
    continuationIntro: 'The goal below is still active. Continue working toward it.',
    nextSteps: [
      '1. Take the next concrete step toward the goal',
      '2. Verify your progress against the goal objective',
      '3. When the goal is complete, use the `goal` tool with action="update_status", status="completed", and provide evidence (required)',
      '4. If you\'re blocked, use the `goal` tool with action="update_status", status="blocked", and give the reason (required)',
    ],
    frameworkIntro:
      'You are working toward the goal below. The team keeps going in new rounds until the goal is reported completed or blocked, or a budget runs out.',
    reporting: [
      '- When the goal is complete and verified: action="update_status", status="completed", evidence="<what shows it is done>" (evidence is required)',
      '- When you cannot proceed: action="update_status", status="blocked", reason="<what blocks you>" (reason is required)',
      '- When the objective needs to be restated: action="update_objective", objective="<the new objective>"',
      '- Do NOT just output text markers like [goal:complete]; only the `goal` tool changes the goal\'s status.',
    ],
  },
} as const;

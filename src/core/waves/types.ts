/** The unit of dispatch: an agent with the outputs that triggered it. Plain JSON, kept in run state. */

/** An output that triggered a dispatch, labelled with its sender (`parent` = the task). */
export interface Trigger {
  from: string;
  text: string;
}

/** One agent of a wave, with the outputs that triggered it. */
export interface WaveItem {
  agent: string;
  triggers: Trigger[];
  /** How a team chose it (docs/teams.md): a transfer, or the selector (absent on a graph's routes). */
  via?: TeamChoice;
}

/** How a team's agent came to its turn: transferred to, or chosen by the selector (in so many model calls, or by fallback). */
export type TeamChoice = { kind: 'handoff'; from: string } | { kind: 'selected'; attempts: number; fallback?: true };

/**
 * The frontier item of a selector team's next turn before its speaker is chosen (docs/teams.md,
 * "Selector teams"): the round machine asks the selector, then dispatches the agent it named with
 * this item's triggers. `parent` is never an agent's name.
 */
export const TO_BE_SELECTED = 'parent';

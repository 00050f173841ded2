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
}

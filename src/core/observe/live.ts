/**
 * What a model call's activity heartbeats while it runs (docs/observability.md, "Live output"): the
 * agent and kind of the call, the last characters written so far and how many there are. Clients
 * read it back from the run's pending activities (`src/in-flight.ts`).
 */

/** The one heartbeat detail of a model-call activity. */
export interface LiveText {
  /** The call scope's agent (the judged agent for the judge). */
  agent: string;
  kind: 'agent' | 'judge' | 'compaction' | 'selector';
  /** The last 2048 characters of the text written so far by the current request. */
  partialText: string;
  /** Characters written so far by the current request. */
  chars: number;
}

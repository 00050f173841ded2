/**
 * Versions of the run workflow's behaviour. A change to what the workflow does (which commands it
 * issues, in which order) is guarded here so that runs started on an older troupe replay and finish
 * with the behaviour they started with (docs/architecture.md, "Changing the workflow"). A run asks
 * once, at its start, which version it runs; new runs record the newest marker in their history.
 */
import { RULES_0_1, type DecisionRules } from '../core/ending/decide';

/** The behaviour a run follows, fixed at its start. */
export interface RunVersion {
  rules: DecisionRules;
}

/** The version of this run (call once, at the start of the workflow). */
export function runVersion(): RunVersion {
  return { rules: RULES_0_1 };
}

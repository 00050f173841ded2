/**
 * The evaluator: whether a condition holds on the round's `TerminationView`, and whether the round
 * stops and why. Composites are decided here (`any_of`: one item holds; `all_of`: every item holds
 * at the same evaluation), leaves by their plugins. One rule everywhere: the round stops when the
 * non-empty `anyOf` holds OR the non-empty `allOf` holds. Pure.
 */
import { DEFAULT_PRIORITY, type StopReason } from '../ending/reasons';
import { pluginOf } from './registry';
import { REASON_TEXTS } from './texts';
import type { Condition, LeafCondition, Termination } from './types';
import type { TerminationView } from './view';

/** A decision to stop the round, with the reason the user sees. */
export interface Stop {
  reason: StopReason;
  reasonText: string;
  /** Lower wins when several conditions hold at once. */
  priority: number;
  status: 'completed' | 'exhausted';
}


/** Whether a leaf's plugin says it holds; an unregistered key (a worker without the user's plugin module) or a plugin that throws does not. */
function pluginHolds(c: LeafCondition, v: TerminationView): boolean {
  const { plugin, params } = pluginOf(c);
  if (!plugin) return false;
  try {
    return plugin.holds(params, v) === true;
  } catch {
    return false;
  }
}

/** Whether one condition (nested composites included) holds on the view. */
export function conditionHolds(c: Condition, v: TerminationView): boolean {
  switch (c.kind) {
    case 'any_of':
      return c.items.some((i) => conditionHolds(i, v));
    case 'all_of':
      return c.items.length > 0 && c.items.every((i) => conditionHolds(i, v));
    default:
      return pluginHolds(c, v);
  }
}

/** The stop a holding leaf reports: its plugin's reason, priority and status, and its reason text (default `<reason>: <description>`). */
function leafStop(c: LeafCondition, v: TerminationView): Stop {
  const { key, plugin, params } = pluginOf(c);
  const reason = plugin?.reason ?? key;
  const reasonText = plugin?.reasonText
    ? plugin.reasonText(params, v)
    : REASON_TEXTS.custom(reason, plugin?.describe ? plugin.describe(params) : key);
  return { reason, reasonText, priority: plugin?.priority ?? DEFAULT_PRIORITY, status: plugin?.status ?? 'completed' };
}

/** The leaves that make `c` hold, in list order (a composite that does not hold contributes none). */
function holdingLeaves(c: Condition, v: TerminationView): LeafCondition[] {
  if (!conditionHolds(c, v)) return [];
  if (c.kind === 'any_of' || c.kind === 'all_of') return c.items.flatMap((i) => holdingLeaves(i, v));
  return [c];
}

/**
 * Whether the round stops, and why: it stops when the non-empty `anyOf` holds or the non-empty
 * `allOf` holds; the reason is the best-priority leaf among those that hold (ties by list order,
 * `anyOf` before `allOf`).
 */
export function evaluateTermination(t: Termination, v: TerminationView): Stop | null {
  const anyHolds = t.anyOf.length > 0 && t.anyOf.some((c) => conditionHolds(c, v));
  const allHolds = t.allOf.length > 0 && t.allOf.every((c) => conditionHolds(c, v));
  if (!anyHolds && !allHolds) return null;
  const leaves = [
    ...(anyHolds ? t.anyOf.flatMap((c) => holdingLeaves(c, v)) : []),
    ...(allHolds ? t.allOf.flatMap((c) => holdingLeaves(c, v)) : []),
  ];
  let best: Stop | null = null;
  for (const leaf of leaves) {
    const s = leafStop(leaf, v);
    if (best === null || s.priority < best.priority) best = s;
  }
  return best;
}

/**
 * Hybrid merge: template edges first, then flow edges. An edge with the
 * same `from->to` replaces the earlier one *in its position* (the whole edge, fields are not merged);
 * new edges are appended in order. Pure.
 */

/** Merge edge lists keyed by `from->to`; later wins, first position kept. Reports replaced pairs. */
export function mergeEdges<E extends { from: string; to: string }>(
  ...lists: ReadonlyArray<readonly E[]>
): { edges: E[]; replaced: Array<{ earlier: E; later: E }> } {
  const byKey = new Map<string, E>();
  const replaced: Array<{ earlier: E; later: E }> = [];
  for (const list of lists) {
    for (const e of list) {
      const key = JSON.stringify([e.from, e.to]);
      const earlier = byKey.get(key);
      if (earlier) replaced.push({ earlier, later: e });
      byKey.set(key, e);
    }
  }
  return { edges: [...byKey.values()], replaced };
}

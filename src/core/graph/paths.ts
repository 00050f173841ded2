/**
 * Path facts for the validator: which nodes `parent` reaches, and which
 * joins are reached by acyclic paths of unequal length (such a node runs once per wave that
 * reaches it). Pure.
 */
import { PARENT } from './types';

type EdgeLike = { from: string; to: string };

const MAX_LENGTHS = 8;

/** Nodes reachable from parent over all edges (BFS). */
export function reachableFromParent(edges: readonly EdgeLike[]): Set<string> {
  const seen = new Set<string>([PARENT]);
  const queue = [PARENT];
  while (queue.length) {
    const n = queue.shift()!;
    for (const e of edges) {
      if (e.from === n && !seen.has(e.to)) {
        seen.add(e.to);
        queue.push(e.to);
      }
    }
  }
  seen.delete(PARENT);
  return seen;
}

/**
 * Joins (nodes with two or more incoming forward edges) whose acyclic paths from parent have
 * different lengths, with the sorted distinct lengths. Forward edges = all edges except back
 * edges (by index) and exit edges, which form a DAG.
 */
export function unequalJoins(edges: readonly EdgeLike[], backEdges: ReadonlySet<number>): Array<{ node: string; lengths: number[] }> {
  const forward = edges.filter((e, i) => !backEdges.has(i) && e.to !== PARENT);
  const indegree = new Map<string, number>();
  const nodes: string[] = [PARENT];
  for (const e of forward) {
    for (const n of [e.from, e.to]) {
      if (!indegree.has(n) && n !== PARENT) {
        indegree.set(n, 0);
        nodes.push(n);
      }
    }
    indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
  }
  const incoming = new Map(indegree);
  const lengths = new Map<string, Set<number>>([[PARENT, new Set([0])]]);
  const ready = nodes.filter((n) => (indegree.get(n) ?? 0) === 0);
  while (ready.length) {
    const n = ready.shift()!;
    const mine = lengths.get(n) ?? new Set<number>();
    for (const e of forward) {
      if (e.from !== n) continue;
      const theirs = lengths.get(e.to) ?? new Set<number>();
      for (const l of mine) if (theirs.size < MAX_LENGTHS) theirs.add(l + 1);
      lengths.set(e.to, theirs);
      const d = indegree.get(e.to)! - 1;
      indegree.set(e.to, d);
      if (d === 0) ready.push(e.to);
    }
  }
  return nodes
    .filter((n) => n !== PARENT && (incoming.get(n) ?? 0) >= 2 && (lengths.get(n)?.size ?? 0) > 1)
    .map((node) => ({ node, lengths: [...lengths.get(node)!].sort((a, b) => a - b) }));
}

/**
 * Loop groups: Tarjan's strongly connected components over the agent-only
 * subgraph (edges touching `parent` are ignored). A component is a loop group when it has more
 * than one node or a self-loop; its id is the sorted node ids joined with `,`. Back edges are the
 * group's internal edges whose target was discovered no later than their source in the DFS, whose
 * roots are the targets of parent edges in edge order, then every other node in first-appearance
 * order. Iterative, so long chains do not overflow the stack. Pure.
 */
import { PARENT, type LoopGroup } from './types';

type EdgeLike = { from: string; to: string };

/** Agent nodes in first-appearance order over the edges (from, then to), parent excluded. */
export function nodesInOrder(edges: readonly EdgeLike[]): string[] {
  const seen = new Set<string>();
  for (const e of edges) for (const n of [e.from, e.to]) if (n !== PARENT) seen.add(n);
  return [...seen];
}

/**
 * DFS roots: parent-edge targets in edge order, then the other nodes in first-appearance order.
 * @internal exported for tests
 */
export function dfsRoots(edges: readonly EdgeLike[]): string[] {
  const roots = new Set<string>();
  for (const e of edges) if (e.from === PARENT && e.to !== PARENT) roots.add(e.to);
  for (const n of nodesInOrder(edges)) roots.add(n);
  return [...roots];
}

function isAgentEdge(e: EdgeLike): boolean {
  return e.from !== PARENT && e.to !== PARENT;
}

/** Tarjan over the agent-only subgraph: components in completion order, plus discovery indexes. */
function tarjan(edges: readonly EdgeLike[]): { components: string[][]; disc: Map<string, number> } {
  const adj = new Map<string, string[]>();
  for (const e of edges) {
    if (!isAgentEdge(e)) continue;
    const list = adj.get(e.from) ?? [];
    list.push(e.to);
    adj.set(e.from, list);
  }
  const disc = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const root of dfsRoots(edges)) {
    if (disc.has(root)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: root, next: 0 }];
    disc.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1];
      const succ = adj.get(frame.node) ?? [];
      if (frame.next < succ.length) {
        const w = succ[frame.next++];
        if (!disc.has(w)) {
          disc.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, next: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, disc.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === disc.get(frame.node)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
        } while (w !== frame.node);
        components.push(comp);
      }
    }
  }
  return { components, disc };
}

/**
 * The loop groups of `edges`, in component completion order. `backEdges` are indexes into
 * `edges` (a duplicated edge contributes each of its occurrences).
 */
export function findLoopGroups(edges: readonly EdgeLike[]): LoopGroup[] {
  const { components, disc } = tarjan(edges);
  const groups: LoopGroup[] = [];
  for (const comp of components) {
    const members = new Set(comp);
    const selfLoop = edges.some((e) => e.from === e.to && members.has(e.from) && isAgentEdge(e));
    if (comp.length < 2 && !selfLoop) continue;
    const nodes = [...comp].sort();
    const backEdges: number[] = [];
    edges.forEach((e, i) => {
      if (isAgentEdge(e) && members.has(e.from) && members.has(e.to) && disc.get(e.to)! <= disc.get(e.from)!) {
        backEdges.push(i);
      }
    });
    groups.push({ id: nodes.join(','), nodes, backEdges });
  }
  return groups;
}

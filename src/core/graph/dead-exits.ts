/**
 * Dead exits: after an agent finishes, routing follows its non-exit edges that hold and takes an
 * unguarded exit edge only when none does (a guarded exit that holds comes first). So an agent
 * with an unguarded exit edge beside an unguarded non-exit edge never takes that exit. The warning
 * says how to make it reachable: guard the exit with the termination condition that already reads
 * the agent, or with a concrete `when`.
 *
 * The `review-loop` and `round-robin` topologies make such a pair on purpose (their loops end by
 * termination conditions and the hard cap, not by the exit edge), so a pair made only of topology
 * edges does not warn; a pair with at least one edge written in `flow` does. Pure.
 */
import type { Path, PathIssue } from '../config/issues';
import type { LocatedCondition } from '../conditions/walk';
import { edgePath, type EdgeDraft } from './edges';
import { GRAPH_MESSAGES as M } from './messages';

const PLAIN = /^[A-Za-z_][\w.-]*$/;
const YAML_WORDS = /^(true|false|yes|no|on|off|null|y|n)$/i;

/** A value as one line of flow-style YAML: `{ result_matches: { agent: critic, score_gte: 85 } }`. */
function flowYaml(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flowYaml).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    return `{ ${Object.entries(v).map(([k, x]) => `${flowYaml(k)}: ${flowYaml(x)}`).join(', ')} }`;
  }
  if (typeof v === 'string') return PLAIN.test(v) && !YAML_WORDS.test(v) ? v : JSON.stringify(v);
  return String(v);
}

function valueAt(root: unknown, path: Path): unknown {
  let cur = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

function unguarded(e: EdgeDraft): boolean {
  return e.when === undefined && e.whenInvalid !== true;
}

/** How to make `agent`'s exit reachable: the first valid termination condition that reads it, else an example. */
function fix(agent: string, conditions: readonly LocatedCondition[], raw: unknown): string {
  for (const c of conditions) {
    if (c.scope !== 'termination' || !c.condition) continue;
    const mention = c.agents.find((m) => m.agent === agent);
    if (mention) return M.deadExitGuardWith(agent, `when: ${flowYaml(valueAt(raw, mention.item))}`);
  }
  return M.deadExitGuardExample(`when: ${flowYaml({ result_matches: { agent, contains: 'APPROVED' } })}`);
}

/**
 * One warning per exit edge that can never be taken, located at the exit edge. `raw` is the
 * config the condition paths point into (for the suggested guard, written as the user wrote it).
 */
export function deadExitWarnings(edges: readonly EdgeDraft[], conditions: readonly LocatedCondition[], raw: unknown): PathIssue[] {
  const out: PathIssue[] = [];
  for (const exit of edges) {
    if (!exit.exit || !unguarded(exit)) continue;
    const forward = edges.filter((e) => e.from === exit.from && !e.exit && unguarded(e));
    if (forward.length === 0) continue;
    if (exit.source.kind !== 'flow' && forward.every((e) => e.source.kind !== 'flow')) continue;
    out.push({ path: edgePath(exit.source), message: M.deadExit(exit.from, forward[0].to, fix(exit.from, conditions, raw)) });
  }
  return out;
}

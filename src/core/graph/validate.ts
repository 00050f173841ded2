/**
 * Graph validation (docs/semantics.md, "The graph"): seven checks with the wording users of other
 * graph runners know (checks 1–3 and 7 are errors, 4–6 warnings), and troupe's own. Nothing
 * short-circuits: every issue is reported at once, at the most specific YAML path, and check 7
 * reads the agent names of invalid condition items too. Pure.
 */
import type { Path, PathIssue } from '../config/issues';
import { didYouMean } from '../config/did-you-mean';
import type { LoopBound } from '../conditions/plugin';
import { allOfLeaves, loopBoundOf, type LocatedCondition } from '../conditions/walk';
import { deadExitWarnings } from './dead-exits';
import { endpointPath, type EdgeDraft } from './edges';
import { nodesInOrder } from './loops';
import { GRAPH_MESSAGES as M } from './messages';
import { reachableFromParent, unequalJoins } from './paths';
import { PARENT, type LoopGroup } from './types';

/** What the graph checks read. */
interface GraphValidationInput {
  edges: readonly EdgeDraft[];
  /** Agent names declared under `agents`. */
  declared: readonly string[];
  loopGroups: readonly LoopGroup[];
  /** Whether the cap is configured or derived from a condition (else it is the default, and the cycle warning is due). */
  capSet: boolean;
  /** The effective hard cap (0 on an acyclic graph). */
  cap: number;
  /** Iterations the loops can need for that many agent results (see `iterationsForMessages`); none when absent. */
  iterationsForMessages?: (messages: number) => number;
  /** Every condition item, valid or not, with its agent names. */
  conditions: readonly LocatedCondition[];
  /** The config the condition paths point into (to quote a condition in a suggestion). */
  raw?: unknown;
  /**
   * Some edges could not be read (a malformed flow item, a failed topology): skip the whole-graph
   * checks (exit, entry, orphans, reachability, cycles, joins), which would only mislead.
   */
  partial?: boolean;
  /** A swarm or selector team: it has no exits and its routes are choices, so the exit and join checks do not apply. */
  team?: boolean;
}

/** Issues found by the graph checks. */
export interface ValidationIssues {
  errors: PathIssue[];
  warnings: PathIssue[];
}

function known(name: string, declared: ReadonlySet<string>): boolean {
  return name === PARENT || declared.has(name);
}

function checkEndpoints(input: GraphValidationInput, declared: ReadonlySet<string>, out: ValidationIssues): void {
  for (const e of input.edges) {
    for (const field of ['from', 'to'] as const) {
      const listed = e.source.kind === 'topology' && (field === 'from' ? e.source.fromIndex : e.source.toIndex) !== undefined;
      if (!listed && !known(e[field], declared)) {
        out.errors.push({ path: endpointPath(e.source, field), message: M.unknownEdgeAgent(e[field], field, didYouMean(e[field], [...declared, PARENT])) });
      }
    }
  }
}

/** An `all_of` loop bound the hard cap can pre-empt: the cap stops the loop before the bound can hold. */
function allOfBoundWarnings(bound: LoopBound, at: Path, input: GraphValidationInput): PathIssue[] {
  switch (bound.kind) {
    case 'iterations':
      return bound.n >= input.cap ? [{ path: at, message: M.allOfCap(bound.n, input.cap) }] : [];
    case 'messages': {
      const needs = input.iterationsForMessages?.(bound.n) ?? 0;
      return needs > input.cap ? [{ path: at, message: M.allOfMessagesCap(bound.n, needs, input.cap) }] : [];
    }
    default: {
      const never: never = bound;
      return never;
    }
  }
}

function checkConditions(input: GraphValidationInput, declared: ReadonlySet<string>, out: ValidationIssues): void {
  for (const { agents, scope } of input.conditions) {
    for (const ref of agents) {
      if (!declared.has(ref.agent)) out.errors.push({ path: ref.path, message: M.unknownConditionAgent(scope, ref.kind, ref.agent, didYouMean(ref.agent, declared)) });
    }
  }
  if (input.cap === 0) return;
  for (const { condition, path, inAllOf } of input.conditions) {
    if (!condition) continue;
    for (const { leaf, path: at } of allOfLeaves(condition, path, inAllOf)) {
      const bound = loopBoundOf(leaf);
      if (bound) out.warnings.push(...allOfBoundWarnings(bound, at, input));
    }
  }
}

function checkWholeGraph(input: GraphValidationInput, out: ValidationIssues): void {
  const edges = input.edges;
  if (edges.length > 0 && !input.team && !edges.some((e) => e.exit)) out.errors.push({ path: ['collaboration'], message: M.noExit, at: 'key' });
  if (edges.length > 0 && !edges.some((e) => e.from === PARENT)) out.errors.push({ path: ['collaboration'], message: M.noEntry, at: 'key' });
  const used = new Set(edges.flatMap((e) => [e.from, e.to]));
  for (const name of input.declared) {
    if (name !== PARENT && !used.has(name)) out.warnings.push({ path: ['agents', name], message: M.orphan(name), at: 'key' });
  }
  const reachable = reachableFromParent(edges);
  for (const node of nodesInOrder(edges)) {
    if (reachable.has(node)) continue;
    const first = edges.find((e) => e.from === node || e.to === node)!;
    out.warnings.push({ path: endpointPath(first.source, first.from === node ? 'from' : 'to'), message: M.disconnected(node) });
  }
  if (input.loopGroups.length > 0 && !input.capSet) {
    out.warnings.push({ path: ['collaboration', 'max_iterations'], message: M.cycleWithoutCap });
  }
  if (input.team) return;
  const back = new Set(input.loopGroups.flatMap((g) => g.backEdges));
  for (const { node, lengths } of unequalJoins(edges, back)) {
    const into = edges.filter((e) => e.to === node);
    const last = into[into.length - 1];
    out.warnings.push({ path: endpointPath(last.source, 'to'), message: M.unequalJoin(node, lengths) });
  }
}

/** Run the graph checks. Pure; never throws. */
export function validateGraph(input: GraphValidationInput): ValidationIssues {
  const out: ValidationIssues = { errors: [], warnings: [] };
  const declared = new Set(input.declared);
  checkEndpoints(input, declared, out);
  checkConditions(input, declared, out);
  out.warnings.push(...deadExitWarnings(input.edges, input.conditions, input.raw));
  if (!input.partial) checkWholeGraph(input, out);
  return out;
}

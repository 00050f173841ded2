/**
 * Topologies: built-in edge templates and `registerTopology`. Edge shapes are exact;
 * `parent` is the orchestrator node. A registered topology may not shadow a built-in, so a
 * role's meaning never depends on which plugin loaded first. Registration runs where YAML compiles (the client, or a `--plugins` module). Pure.
 */
import { TEAM_TOPOLOGIES } from './teams';
import { PARENT } from './types';

/** An edge produced by a topology. `exit` defaults to "the target is parent". */
interface TopologyEdge {
  from: string;
  to: string;
  label?: string;
  exit?: boolean;
}

/** Expands an agent list into edges. Must be pure. */
type TopologyExpander = (agents: readonly string[]) => TopologyEdge[];

function pipeline(agents: readonly string[]): TopologyEdge[] {
  if (agents.length === 0) return [];
  const edges: TopologyEdge[] = [{ from: PARENT, to: agents[0] }];
  for (let i = 0; i + 1 < agents.length; i++) edges.push({ from: agents[i], to: agents[i + 1] });
  return edges;
}

function chainWithExit(agents: readonly string[]): TopologyEdge[] {
  if (agents.length === 0) return [];
  return [...pipeline(agents), { from: agents[agents.length - 1], to: PARENT, exit: true }];
}

function reviewLoop(agents: readonly string[]): TopologyEdge[] {
  if (agents.length === 0) return [];
  const first = agents[0];
  const last = agents[agents.length - 1];
  return [
    ...pipeline(agents),
    { from: last, to: first, label: 'loop' },
    { from: last, to: PARENT, label: 'exit', exit: true },
  ];
}

function star(agents: readonly string[]): TopologyEdge[] {
  return agents.flatMap((a) => [
    { from: PARENT, to: a },
    { from: a, to: PARENT, exit: true },
  ]);
}

/** The built-in topologies. `round-robin` has review-loop's edges; it differs in context (thread). */
const BUILTIN_TOPOLOGIES: Readonly<Record<string, TopologyExpander>> = {
  pipeline: chainWithExit,
  'review-loop': reviewLoop,
  star,
  'round-robin': reviewLoop,
};

/** Team topologies have no edges to expand: `teams.ts` compiles them (docs/teams.md). */
const TEAM_NAMES: readonly string[] = TEAM_TOPOLOGIES;

const custom = new Map<string, TopologyExpander>();

/** Add a topology under `name` (`[a-z][a-z0-9-]*`). Throws when it would shadow a built-in. */
export function registerTopology(name: string, expand: TopologyExpander): void {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`registerTopology: invalid name "${name}"`);
  if (Object.prototype.hasOwnProperty.call(BUILTIN_TOPOLOGIES, name) || TEAM_NAMES.includes(name)) {
    throw new Error(`registerTopology: "${name}" is a built-in topology and cannot be replaced`);
  }
  custom.set(name, expand);
}

/** All topology names, built-ins first. */
export function topologyNames(): string[] {
  return [...Object.keys(BUILTIN_TOPOLOGIES), ...TEAM_NAMES, ...custom.keys()];
}

/** The expander for `name`, or undefined when no such topology exists. */
export function getTopology(name: string): TopologyExpander | undefined {
  return Object.prototype.hasOwnProperty.call(BUILTIN_TOPOLOGIES, name) ? BUILTIN_TOPOLOGIES[name] : custom.get(name);
}

/**
 * Expand `name` over `agents`; undefined for an unknown topology. An empty list gives `[]`.
 * @internal exported for tests
 */
export function expandTopology(name: string, agents: readonly string[]): TopologyEdge[] | undefined {
  const expand = getTopology(name);
  return expand && (agents.length === 0 ? [] : expand(agents));
}

/**
 * Test helper: forget every registered topology.
 * @internal exported for tests
 */
export function clearRegisteredTopologies(): void {
  custom.clear();
}

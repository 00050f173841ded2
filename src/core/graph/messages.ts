/**
 * User-visible messages of the graph compiler and validator.
 * Checks 1–6 keep the wording users of other graph runners already know.
 */
import { clip, MAX_SNIPPET_CHARS } from '../config/limits';

export const GRAPH_MESSAGES = {
  // checks 1–6
  unknownEdgeAgent: (name: string, field: 'from' | 'to', hint = '') => `Edge references unknown agent "${clip(name)}" in "${field}" field${hint}`,
  noExit: 'No exit edge found: graph has no termination path',
  noEntry: 'No entry point found: graph must have at least one edge from "parent"',
  orphan: (name: string) => `Orphan agent "${clip(name)}" is not referenced in any edge`,
  disconnected: (name: string) => `Disconnected node "${clip(name)}" is not reachable from parent entry point`,
  cycleWithoutCap: 'Cycle detected in graph but maxIterations is not set, defaulting to 3',
  // check 7 (an error in troupe)
  unknownConditionAgent: (scope: 'termination' | 'when', kind: string, name: string, hint = '') =>
    `${scope} ${kind} references unknown agent "${clip(name)}"${hint}`,
  // edges
  malformedEdge: (s: string) => `malformed edge "${clip(s)}": expected "from -> to" or "from -> to: label"`,
  exitToAgent: (to: string) => `exit: true is only allowed on an edge to parent ("${clip(to)}" is an agent)`,
  notExitToParent: 'exit: false is not allowed on an edge to parent: edges to parent always exit',
  parentToParent: 'an edge cannot go from parent to parent',
  whenOnEntry: 'when is not allowed on an edge from parent: entry edges always run',
  duplicateEdge: (from: string, to: string) => `duplicate edge "${clip(from)} -> ${clip(to)}": the later one replaces the earlier`,
  // topologies and agents
  unknownTopology: (name: string, known: string[], hint: string) =>
    `unknown topology "${clip(name)}"${hint}; expected one of ${known.join(', ')}`,
  topologyNeedsAgents: 'must list at least one agent when a topology is set',
  topologyFailed: (name: string, why: string) => `topology "${clip(name)}" failed to expand: ${why}`,
  topologyBadEdges: 'it must return a list of {from, to} edges',
  topologyExitToAgent: (name: string, to: string) => `topology "${clip(name)}" produced exit: true on an edge to agent "${clip(to)}"`,
  duplicateTopologyAgent: (name: string) => `duplicate agent "${clip(name)}" in the topology list`,
  /** With a close declared name, the hint replaces the advice to declare the typo. */
  undeclaredAgent: (name: string, hint = '') => (hint ? `unknown agent "${clip(name)}"${hint}` : `unknown agent "${clip(name)}": declare it under agents`),
  agentsWithoutTopology: 'collaboration.agents is only used with a topology; it is ignored here',
  noEdges: 'needs a topology or a flow: the graph has no edges',
  reservedAgentName: '"parent" is the orchestrator node and cannot be an agent name',
  reservedUserName: '"user" is the human a transfer to user reaches (handoffs: [user]) and cannot be an agent name',
  parentInTopology: '"parent" is the orchestrator node and cannot be listed as an agent',
  badAgentName: (name: string) => `agent name "${clip(name)}" may not contain whitespace, ">" or ":"`,
  // troupe's other checks
  unequalJoin: (name: string, lengths: number[]) =>
    `agent "${clip(name)}" is reached from parent by paths of different lengths (${lengths.join(', ')} edges), so it runs once per wave that reaches it`,
  allOfCap: (n: number, cap: number) =>
    `all_of uses max_iterations ${n}, which is >= the hard cap ${cap}: the hard cap stops the loop first`,
  allOfMessagesCap: (n: number, needs: number, cap: number) =>
    `all_of uses max_messages ${n}, which can need ${needs} iterations of a loop, more than the hard cap ${cap}: the hard cap can stop the loop first (set collaboration.max_iterations to ${needs} or more)`,
  deadExit: (from: string, to: string, fix: string) =>
    `the exit edge "${clip(from)} -> parent" is never taken: routing always follows the unguarded edge "${clip(from)} -> ${clip(to)}" instead; ${fix}`,
  deadExitGuardWith: (agent: string, when: string) =>
    `guard the exit with the termination condition that reads ${clip(agent)} (${clip(when, MAX_SNIPPET_CHARS)}) so the run exits when it holds`,
  deadExitGuardExample: (when: string) => `guard the exit so it can be taken, e.g. ${clip(when, MAX_SNIPPET_CHARS)}`,
  // dynamic teams (docs/teams.md)
  handoffsInSelector: 'a selector team has no handoffs: its selector chooses every speaker (remove handoffs, or use topology: swarm)',
  handoffEdgesInSwarm: 'handoffs: edges needs edges, and a swarm has none: list the agents this one may transfer to',
  handoffNoOutEdges: (agent: string) => `handoffs: edges, but "${clip(agent)}" has no edge to another agent`,
  handoffToItself: (agent: string) => `"${clip(agent)}" cannot transfer to itself`,
  duplicateHandoff: (target: string) => `"${clip(target)}" is listed twice`,
  unknownHandoff: (target: string, hint = '') => `unknown handoff target "${clip(target)}"${hint || ': declare it under agents, or use user for a human'}`,
  handoffOutsideTeam: (target: string, team: string) => `"${clip(target)}" is not in the ${team}: add it to collaboration.agents`,
  handoffNotAnEdge: (agent: string, target: string, targets: string[]) =>
    `"${clip(agent)}" has no edge to "${clip(target)}": a transfer follows an out-edge (${targets.length > 0 ? `its targets: ${targets.map((t) => clip(t)).join(', ')}` : 'it has none'}); add "${clip(agent)} -> ${clip(target)}" to the flow`,
  handoffNameTooLong: (tool: string, max: number) => `the tool name "${clip(tool)}" is longer than ${max} characters: shorten the agent's name`,
  handoffToolClash: (target: string, other: string, tool: string) =>
    `"${clip(target)}" and "${clip(other)}" would both be offered as ${clip(tool)}: rename one of them`,
  handoffShadowsTool: (tool: string) => `${clip(tool)} is also one of the agent's tools: rename the tool`,
  selectorWithoutSelector: 'selector options need topology: selector',
  maxTurnsWithoutTeam: 'max_turns counts the turns of a swarm or selector team; a graph is capped by max_iterations',
  flowInTeam: (team: string) => `a ${team} team has no flow: its ${team === 'swarm' ? 'handoffs are its routes' : 'selector chooses each speaker'}`,
  swarmAgentWithoutHandoffs: (agent: string) => `"${clip(agent)}" is in a swarm but has no handoffs: list the agents it may transfer to (user for a human)`,
  selectorNeedsTwo: 'a selector team needs at least two agents',
  turnsWithoutCap: (team: string, turns: number, agents: number) =>
    `the ${team} team has no max_turns and no max_messages condition: a round stops after ${turns} turns (3 per agent, ${agents} agents)`,
  // nested teams (docs/teams.md, "Nested teams")
  instructionsRequired: 'required (an agent that is not a team needs instructions)',
  notOnTeam: (key: string) => `a team agent has no ${key}: its team's own agents have ${key === 'model' ? 'models' : key} (remove it here)`,
  teamNotLoaded: (ref: string) =>
    `the team "${clip(ref)}" was not loaded: team files are read by the file loader (loadRoleFile, troupe run/validate/graph); in TypeScript give team a Role from defineRole`,
  teamTooDeep: (max: number, chain: string[]) => `teams are nested more than ${max} levels deep (${chain.map((c) => clip(c)).join(' → ')})`,
  teamCycle: (chain: string[]) => `team files form a cycle: ${chain.map((c) => clip(c)).join(' → ')}`,
  teamMissing: (ref: string, why: string) => `cannot read the team file "${clip(ref)}": ${why}`,
  teamHasErrors: (ref: string, n: number) => `the team file "${clip(ref)}" has ${n} error${n === 1 ? '' : 's'} (listed with their place in it)`,
  toolChoiceWithoutTools: 'required needs tools: give the agent tools, or remove tool_choice',
  goalUnreported: 'no agent can report on the goal: give at least one agent the goal tool (tools: [goal])',
  missingPricing: (models: string[]) =>
    `needs pricing for every model used; missing: ${models.map((m) => clip(m)).join(', ')} (add them under pricing)`,
} as const;

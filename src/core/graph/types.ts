/**
 * The compiled graph: plain JSON, the workflow's argument. Everything the workflow
 * needs is here, resolved: agents with their effective model, edges in compiled order, loop groups,
 * the effective hard cap and the termination expression.
 */
import type { Condition, Termination } from '../conditions/types';

/** The orchestrator node. Edges to it are exit edges. */
export const PARENT = 'parent';

/** A compiled edge. `exit` is true exactly when `to === 'parent'`. */
export interface Edge {
  from: string;
  to: string;
  label?: string;
  exit: boolean;
  when?: Condition;
  /** A swarm's route: followed only when its agent transfers to its target (docs/teams.md, "Swarm teams"). */
  handoff?: true;
}

/** A strongly connected component of the agent-only subgraph. */
export interface LoopGroup {
  /** Sorted node ids joined with `,`. */
  id: string;
  /** Sorted node ids. */
  nodes: string[];
  /** Indexes into `CompiledGraph.edges` of this group's back edges. */
  backEdges: number[];
}

/** Effective model settings of an agent or the judge (defaults merged). */
export interface ResolvedModel {
  name: string;
  temperature?: number;
  maxTokens?: number;
  contextWindow?: number;
  baseUrl?: string;
  apiKeyEnv?: string;
  /** Bytes one reply may bring, streamed or whole (`max_reply_bytes`; absent: the default of core/llm/reply-caps.ts). */
  maxReplyBytes?: number;
  /** Bytes one server-sent line or event may hold (`max_event_bytes`; absent: the default). */
  maxEventBytes?: number;
  /** `off`: a call written as text in a reply is never read as a call (absent: on; docs/semantics.md, "Agent calls"). */
  textToolCalls?: 'off';
}

export interface CompiledAgent {
  name: string;
  instructions: string;
  description?: string;
  model: ResolvedModel;
  /** Tools the agent may use, as written: `goal`, `signal`, module tools, `server.tool`, `server.*`. */
  tools: string[];
  /** Tool rounds of one dispatch before the closing call (`DEFAULT_MAX_TOOL_ROUNDS` unless the role sets it). */
  maxToolRounds: number;
  /** Tool calls of one reply that run (absent in graphs compiled before troupe 0.3: 32). */
  maxParallelToolCalls?: number;
  timeoutMs: number;
  /** `accept`: a reply still cut by `max_tokens` is kept (absent: it ends the run `failed/truncated_output`). */
  onTruncated?: 'accept';
  /** `required`: the first reply of each dispatch must call a tool (absent: `auto`). */
  toolChoice?: 'required';
  /** Agents it may transfer to (`user`: a human), in order (docs/teams.md, "Handoffs"); absent: none. */
  handoffs?: string[];
  /** The agent is a nested team, run as a child workflow (docs/teams.md, "Nested teams"); absent: a model. */
  team?: TeamGraph;
}

/** A nested team: the child role's compiled graph and the file it came from (as written in the role). */
export interface TeamGraph {
  /** The `team:` reference as written (`./research-team.yaml`), or the role's name for a team given in TypeScript. */
  file: string;
  graph: CompiledGraph;
}

export { USER } from './user';

/** The selector of a `selector` team, resolved (docs/teams.md, "Selector teams"). */
export interface CompiledSelector {
  model: ResolvedModel;
  /** The role's own prompt; absent: the default. */
  prompt?: string;
  allowRepeatedSpeaker: boolean;
  maxAttempts: number;
  timeoutMs?: number;
}

export interface CompiledGoal {
  objective: string;
  successCriteria?: string;
  constraints?: string;
  maxTurns: number;
  maxDurationMs: number;
}

export interface CompiledBudget {
  maxTotalTokens?: number;
  maxCostUsd?: number;
  maxAgentCalls?: number;
  maxDurationMs?: number;
  maxToolCalls?: number;
}

export interface CompiledGraph {
  name: string;
  /** Default task from the YAML; `--task` overrides it at start. */
  task?: string;
  /** Topology name when one was used (for pictures and prompts). */
  topology?: string;
  agents: Record<string, CompiledAgent>;
  /** Agent node ids in first-appearance order over the edges (parent excluded). */
  nodes: string[];
  edges: Edge[];
  /** Targets of edges from parent, in edge order (wave 1). */
  entry: string[];
  loopGroups: LoopGroup[];
  /** Effective hard cap on every loop group's counter per round; 0 on acyclic graphs and teams. */
  maxIterations: number;
  /** Turns per round of a `swarm` or `selector` team (docs/teams.md, "Turns"); absent on graphs. */
  maxTurns?: number;
  /** The selector of a `selector` team. */
  selector?: CompiledSelector;
  context: 'inbox' | 'thread';
  termination: Termination;
  /** The convergence judge: its model, and its timeout when the role sets one (default 30000 ms). */
  judge: { model: ResolvedModel; timeoutMs?: number };
  pricing: Record<string, { input: number; output: number }>;
  goal?: CompiledGoal;
  output?: { schema: Record<string, unknown>; maxRetries: number };
  /** `tools`: patterns of tool calls that wait for a human (absent when none). */
  approval: { beforeExit: boolean; tools?: string[] };
  budget: CompiledBudget;
}

/**
 * Dynamic teams in the compiled graph (docs/teams.md): each agent's handoff targets, the edges of a
 * `swarm` or `selector` team, its turn cap and its selector, with a located error for every mistake.
 * Pure.
 */
import type { PathIssue } from '../config/issues';
import { didYouMean } from '../config/did-you-mean';
import type { RoleConfig } from '../config/schema';
import { loopBounds } from '../conditions/walk';
import type { Termination } from '../conditions/types';
import type { EdgeDraft } from './edges';
import { GRAPH_MESSAGES as M } from './messages';
import { resolveModel } from './resolve';
import { PARENT, USER, type CompiledGraph, type CompiledSelector } from './types';

/** Topologies whose agents choose (swarm) or are chosen (selector) instead of following edges. */
export const TEAM_TOPOLOGIES = ['swarm', 'selector'] as const;
export type TeamTopology = (typeof TEAM_TOPOLOGIES)[number];

/** Whether `topology` is a swarm or a selector team. */
export function isTeam(topology: string | undefined): topology is TeamTopology {
  return (TEAM_TOPOLOGIES as readonly string[]).includes(topology ?? '');
}

/** Turns of a team per agent when neither `max_turns` nor a `max_messages` condition bounds it. */
const DEFAULT_TURNS_PER_AGENT = 3;
/** Model calls of the selector before the turn falls back (AutoGen's `max_selector_attempts`). */
const DEFAULT_SELECTOR_ATTEMPTS = 3;
/** Longest tool name the OpenAI API accepts. */
const MAX_TOOL_NAME = 64;

/**
 * The tool an agent calls to transfer to `target`: `transfer_to_<target>`, every character a tool
 * name cannot hold written `_` (the case is kept, as the OpenAI Agents SDK does).
 */
export function transferToolName(target: string): string {
  return `transfer_to_${target.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * What an agent is, in one line, for another model choosing it (a transfer tool's description, a
 * selector's `{roles}`): its `description`, else the first line of its instructions, else its name.
 */
export function agentSummary(graph: CompiledGraph, name: string): string {
  const agent = graph.agents[name];
  return agent?.description?.trim() || agent?.instructions.trim().split('\n')[0]?.trim() || name;
}

/** What the team pieces of a role compile to. */
export interface CompiledTeam {
  /** Handoff targets by agent, in order (only agents that have some). */
  handoffs: Record<string, string[]>;
  /** A team's edges (replacing the topology's): its entry and, in a swarm, one handoff edge per target. */
  edges?: EdgeDraft[];
  /** The agents of a team's first wave. */
  entry?: string[];
  maxTurns?: number;
  selector?: CompiledSelector;
  errors: PathIssue[];
  warnings: PathIssue[];
}

/**
 * Compile the team pieces of `config`: handoff targets checked against the agents and (in a graph)
 * the agent's out-edges in `edges`; a team's own edges, turn cap and selector.
 */
export function compileTeam(config: RoleConfig, edges: readonly EdgeDraft[], termination: Termination): CompiledTeam {
  const c = config.collaboration;
  const topology = c.topology?.trim();
  const team = isTeam(topology) ? topology : undefined;
  const out: CompiledTeam = { handoffs: {}, errors: [], warnings: [] };
  const declared = Object.keys(config.agents);
  const members = team ? [...new Set((c.agents ?? []).map((a) => a.trim()))].filter((a) => declared.includes(a)) : [];

  for (const [name, agent] of Object.entries(config.agents)) {
    if (agent.handoffs === undefined) continue;
    const at = ['agents', name, 'handoffs'];
    if (team === 'selector') {
      out.errors.push({ path: at, message: M.handoffsInSelector, at: 'key' });
      continue;
    }
    const outEdges = [...new Set(edges.filter((e) => e.from === name && e.to !== PARENT && !e.exit).map((e) => e.to))];
    if (agent.handoffs === 'edges') {
      if (team) out.errors.push({ path: at, message: M.handoffEdgesInSwarm });
      else if (outEdges.length === 0) out.errors.push({ path: at, message: M.handoffNoOutEdges(name) });
      else out.handoffs[name] = outEdges;
      continue;
    }
    const targets: string[] = [];
    agent.handoffs.forEach((raw, i) => {
      const target = raw.trim();
      const path = [...at, i];
      if (target === name) out.errors.push({ path, message: M.handoffToItself(name) });
      else if (targets.includes(target)) out.errors.push({ path, message: M.duplicateHandoff(target) });
      else if (target !== USER && !declared.includes(target)) out.errors.push({ path, message: M.unknownHandoff(target, didYouMean(target, [...declared, USER])) });
      else if (team && target !== USER && !members.includes(target)) out.errors.push({ path, message: M.handoffOutsideTeam(target, team) });
      else if (!team && target !== USER && !outEdges.includes(target)) out.errors.push({ path, message: M.handoffNotAnEdge(name, target, outEdges) });
      else if (transferToolName(target).length > MAX_TOOL_NAME) out.errors.push({ path, message: M.handoffNameTooLong(transferToolName(target), MAX_TOOL_NAME) });
      else {
        const clash = targets.find((t) => transferToolName(t) === transferToolName(target));
        if (clash !== undefined) out.errors.push({ path, message: M.handoffToolClash(target, clash, transferToolName(target)) });
        else if ((agent.tools ?? []).includes(transferToolName(target))) out.errors.push({ path, message: M.handoffShadowsTool(transferToolName(target)) });
        else targets.push(target);
      }
    });
    if (targets.length > 0) out.handoffs[name] = targets;
  }

  if (c.selector !== undefined && team !== 'selector') out.errors.push({ path: ['collaboration', 'selector'], message: M.selectorWithoutSelector, at: 'key' });
  if (c.max_turns !== undefined && !team) out.errors.push({ path: ['collaboration', 'max_turns'], message: M.maxTurnsWithoutTeam, at: 'key' });
  if (!team) return out;

  if (c.flow !== undefined) out.errors.push({ path: ['collaboration', 'flow'], message: M.flowInTeam(team), at: 'key' });
  if (team === 'swarm') {
    for (const member of members) {
      if (config.agents[member]?.handoffs === undefined) out.errors.push({ path: ['agents', member], message: M.swarmAgentWithoutHandoffs(member), at: 'key' });
    }
  }
  if (team === 'selector' && members.length < 2) out.errors.push({ path: ['collaboration', 'agents'], message: M.selectorNeedsTwo });

  out.edges = teamEdges(team, members, out.handoffs);
  out.entry = team === 'swarm' ? members.slice(0, 1) : [];
  out.maxTurns = c.max_turns ?? turnsFromConditions(termination);
  if (out.maxTurns === undefined) {
    out.maxTurns = DEFAULT_TURNS_PER_AGENT * members.length;
    out.warnings.push({ path: ['collaboration'], message: M.turnsWithoutCap(team, out.maxTurns, members.length), at: 'key' });
  }
  if (team === 'selector') out.selector = selectorOf(config);
  return out;
}

/**
 * A team's edges, for pictures and the worker's checks (routing reads the handoffs, not these): a
 * swarm's entry and one handoff edge per agent target; a selector's edge from `parent` to each agent.
 */
function teamEdges(team: TeamTopology, members: string[], handoffs: Record<string, string[]>): EdgeDraft[] {
  const listed = (name: string): number | undefined => (members.includes(name) ? members.indexOf(name) : undefined);
  const edge = (from: string, to: string, extra: Partial<EdgeDraft> = {}): EdgeDraft => ({
    from,
    to,
    exit: false,
    source: { kind: 'topology', fromIndex: listed(from), toIndex: listed(to) },
    ...extra,
  });
  if (team === 'selector') return members.map((m) => edge(PARENT, m, { label: 'selected' }));
  const routes = members.flatMap((m) => (handoffs[m] ?? []).filter((t) => t !== USER).map((t) => edge(m, t, { label: 'handoff', handoff: true })));
  return members.length > 0 ? [edge(PARENT, members[0]), ...routes] : [];
}

/** `max_messages: N` (a condition that can end the run by itself) gives a team N turns; the largest wins. */
function turnsFromConditions(termination: Termination): number | undefined {
  const found = loopBounds(termination).flatMap(({ bound, endsAlone }) => (bound.kind === 'messages' && endsAlone ? [bound.n] : []));
  return found.length > 0 ? Math.max(...found) : undefined;
}

/** The selector: its model (the role's `model` under `selector.model`), prompt, repeat rule and attempts. */
function selectorOf(config: RoleConfig): CompiledSelector {
  const s = config.collaboration.selector;
  const timeoutMs = s?.model?.timeout_ms ?? config.model?.timeout_ms;
  return {
    model: resolveModel(config.model, s?.model),
    ...(s?.prompt !== undefined && { prompt: s.prompt }),
    allowRepeatedSpeaker: s?.allow_repeated_speaker ?? false,
    maxAttempts: s?.max_attempts ?? DEFAULT_SELECTOR_ATTEMPTS,
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
}

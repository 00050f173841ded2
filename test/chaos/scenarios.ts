/**
 * The kinds of run the chaos run mixes (RELIABILITY.md §1): each a role and a scripted model whose
 * reply depends only on which call of which agent it answers, so a run under faults must end exactly
 * as its undisturbed twin.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadRoleFile } from '../../src/config-file';
import { formatIssue } from '../../src/core/config/load';
import type { CompiledGraph } from '../../src/core/graph/types';
import { compileYaml } from '../helpers/compile';
import type { StubStep } from '../helpers/stub-llm';

/** Every kind of run, in the order a mix of "one of each" lists them. */
export const SCENARIO_KINDS = ['review', 'star', 'goal', 'approval', 'tools', 'swarm', 'team', 'gated_tool', 'handoff_user'] as const;

/**
 * The kinds of run the chaos mixes: a review loop, a star of four, a goal run, a run the driver
 * approves before it ends, a run filing two receipts; a swarm whose agents transfer the turn
 * (docs/teams.md), a nested team (docs/teams.md, "Nested teams"), a receipt call the driver approves
 * first (`approval.tools`, docs/semantics.md "Humans in the loop"), and a swarm that ends when an
 * agent hands off to the user (`handoff: user`).
 */
export type ScenarioKind = (typeof SCENARIO_KINDS)[number];

/** The kinds whose run waits for the driver's approval of its first request (`r1`). */
export const APPROVED_KINDS: ReadonlySet<ScenarioKind> = new Set(['approval', 'gated_tool']);

/** Side effects (receipts) one run of each kind files. */
export const EFFECTS_OF: Record<ScenarioKind, number> = {
  review: 0,
  star: 0,
  goal: 0,
  approval: 0,
  tools: 2,
  swarm: 0,
  team: 0,
  gated_tool: 1,
  handoff_user: 0,
};

/** The team the `team` kind's `research` agent is, written to its own file (a team is a role file). */
const RESEARCH_TEAM = `
name: chaos-research
agents:
  searcher: { instructions: "Search." }
  summarizer: { instructions: "Summarize." }
collaboration:
  topology: pipeline
  agents: [searcher, summarizer]
`;

/** The role of each kind as YAML; `teamFile` is where the `team` kind's team file is. */
function configOf(kind: ScenarioKind, teamFile: string): string {
  switch (kind) {
    case 'review':
      return `
name: chaos-review
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Review. End with score: N." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 6
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
`;
    case 'star':
      return `
name: chaos-star
agents:
  security: { instructions: "Review security." }
  performance: { instructions: "Review performance." }
  style: { instructions: "Review style." }
  docs: { instructions: "Review docs." }
collaboration:
  topology: star
  agents: [security, performance, style, docs]
`;
    case 'goal':
      return `
name: chaos-goal
agents:
  worker: { instructions: "Work toward the goal.", tools: [goal] }
collaboration:
  topology: pipeline
  agents: [worker]
goal:
  objective: "ship the report"
  max_turns: 4
`;
    case 'approval':
      return `
name: chaos-approval
agents:
  writer: { instructions: "Write." }
  editor: { instructions: "Edit." }
collaboration:
  topology: pipeline
  agents: [writer, editor]
approval:
  before_exit: true
`;
    case 'tools':
      return `
name: chaos-tools
agents:
  clerk: { instructions: "File the receipts.", tools: [file_receipt] }
collaboration:
  topology: pipeline
  agents: [clerk]
`;
    case 'swarm':
      return `
name: chaos-swarm
agents:
  alice: { instructions: "Start the report.", handoffs: [bob] }
  bob: { instructions: "Check the numbers.", handoffs: [carol, alice] }
  carol: { instructions: "Write it up. Say DONE when it is.", handoffs: [alice] }
collaboration:
  topology: swarm
  agents: [alice, bob, carol]
  max_turns: 8
  termination: { any_of: [{ text_mention: DONE }] }
`;
    case 'team':
      return `
name: chaos-team
agents:
  research: { description: Researches the question, team: ${JSON.stringify(teamFile)} }
  writer: { instructions: "Write the report." }
collaboration:
  topology: pipeline
  agents: [research, writer]
`;
    case 'gated_tool':
      return `
name: chaos-gated-tool
agents:
  clerk: { instructions: "File the receipt once a human approves it.", tools: [file_receipt] }
collaboration:
  topology: pipeline
  agents: [clerk]
approval:
  tools: [file_receipt]
`;
    case 'handoff_user':
      return `
name: chaos-handoff-user
agents:
  triage: { instructions: "Route the request.", handoffs: [billing] }
  billing: { instructions: "Bill. Ask the user what you need.", handoffs: [triage, user] }
collaboration:
  topology: swarm
  agents: [triage, billing]
  max_turns: 6
  termination: { any_of: [{ handoff: user }] }
`;
  }
}

/**
 * The compiled role of each kind. The `team` kind is loaded as a file with its team file beside it
 * in `dir` (a team agent names a role file, docs/teams.md); the others compile from their text.
 */
export function rolesOf(dir: string): Record<ScenarioKind, CompiledGraph> {
  const teamFile = path.join(dir, 'chaos-research-team.yaml');
  fs.writeFileSync(teamFile, RESEARCH_TEAM);
  const roles = {} as Record<ScenarioKind, CompiledGraph>;
  for (const kind of SCENARIO_KINDS) {
    const yaml = configOf(kind, teamFile);
    if (kind !== 'team') {
      roles[kind] = compileYaml(yaml, `chaos-${kind}.yaml`);
      continue;
    }
    const file = path.join(dir, `chaos-${kind}.yaml`);
    fs.writeFileSync(file, yaml);
    const loaded = loadRoleFile(file);
    if (loaded.errors.length > 0 || !loaded.graph) throw new Error(`invalid chaos role:\n${loaded.errors.map(formatIssue).join('\n')}`);
    roles[kind] = loaded.graph;
  }
  return roles;
}

const transfer = (to: string, message: string) => ({ name: `transfer_to_${to}`, arguments: { message } });

/**
 * The model's reply to the `ordinal`-th call of `agent` in a run of `kind` (retries of one call share
 * its ordinal), `index` being the request's place within its attempt (built-in tool rounds);
 * `receipts` is the folder the run's receipt tool files into.
 */
export function replyOf(kind: ScenarioKind, agent: string, ordinal: number, index: number, receipts: string): StubStep {
  switch (kind) {
    case 'review':
      return agent === 'critic' ? { text: `Tighten the intro.\nscore: ${60 + 10 * ordinal}` } : { text: `draft ${ordinal + 1} of the essay` };
    case 'star':
      return { text: `${agent} review: two findings` };
    case 'goal':
      if (ordinal === 0) return { text: 'step 1: outline written' };
      return index === 0
        ? { toolCalls: [{ name: 'goal', arguments: { action: 'update_status', status: 'completed', evidence: 'report shipped' } }] }
        : { text: 'report shipped' };
    case 'approval':
      return { text: `${agent} text, version 1` };
    case 'tools':
      if (ordinal < 2) return { toolCalls: [{ name: 'file_receipt', arguments: { dir: receipts, amount: 10 * (ordinal + 1) } }] };
      return { text: 'filed two receipts' };
    case 'swarm':
      // alice keeps the turn once, then transfers to bob, who transfers to carol, who ends it
      if (agent === 'alice') return ordinal === 0 ? { text: 'alice: first notes on the report' } : { toolCalls: [transfer('bob', 'check the numbers')] };
      if (agent === 'bob') return { toolCalls: [transfer('carol', 'the numbers add up; write it up')] };
      return { text: `carol: the report, written up (turn ${ordinal + 1}). DONE` };
    case 'team':
      // searcher and summarizer run in the team's child workflow, writer in the parent
      return { text: `${agent}: ${agent === 'writer' ? 'the report' : 'notes'} ${ordinal + 1}` };
    case 'gated_tool':
      if (ordinal === 0) return { toolCalls: [{ name: 'file_receipt', arguments: { dir: receipts, amount: 50 } }] };
      return { text: 'filed one receipt after approval' };
    case 'handoff_user':
      if (agent === 'triage') return { toolCalls: [transfer('billing', 'the customer was charged twice')] };
      return { toolCalls: [transfer('user', 'Which invoice was charged twice?')] };
  }
}

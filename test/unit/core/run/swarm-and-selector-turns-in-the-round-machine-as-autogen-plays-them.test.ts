/**
 * Swarm and selector teams in the round machine (docs/teams.md), one event at a time, with graphs
 * compiled from YAML: who speaks each turn, when the machine asks the selector, what ends the run.
 * The AutoGen cases are ported from its Swarm tests (reference: AutoGen `test_group_chat.py`,
 * "HandoffTermination and resume"): troupe's resume is the same run, waiting for `troupe answer`.
 */
import { loadRoleConfig } from '../../../../src/core/config/load';
import type { CompiledGraph } from '../../../../src/core/graph/types';
import { decide, pendingRequests } from '../../../../src/core/humans/requests';
import type { AgentCallResult, ToolEvent } from '../../../../src/core/llm/contract';
import type { Machine } from '../../../../src/core/run/step';
import type { Command } from '../../../../src/core/run/types';
import { SELECTOR_TEXTS } from '../../../../src/core/teams/selector';
import { drive, machineFor } from '../../fixtures/drive-machine';

function compile(yaml: string): CompiledGraph {
  const r = loadRoleConfig(yaml, 'role.yaml');
  if (!r.graph) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r.graph;
}

function result(text: string, events: ToolEvent[] = []): AgentCallResult {
  return { text, toolEvents: events, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, llmCalls: 1, model: 'm', warnings: [] };
}
const to = (target: string, message?: string): ToolEvent => ({ tool: 'handoff', target, ...(message ? { message } : {}) });

/** Scripted turns per agent: each a text, or a transfer. */
type Turn = string | ToolEvent;

interface Driven {
  speakers: string[];
  end: Extract<Command, { kind: 'end' }>;
  m: Machine;
  selections: number;
}

/**
 * Drive `graph` (the tests' one {@link drive}): each dispatch answers from the agent's script (its
 * last turn repeats), each selection with `select(turn)`; a wait for a human is answered with `answer`.
 */
function driveTeam(graph: CompiledGraph, scripts: Record<string, Turn[]>, opts: { select?: (n: number, candidates: string[]) => string | undefined; answer?: string } = {}): Driven {
  const m = machineFor(graph);
  const { last, commands, waves } = drive(
    m,
    {
      answer: (agent, turn) => {
        const script = scripts[agent] ?? ['ok'];
        const given = script[Math.min(turn - 1, script.length - 1)];
        return typeof given === 'string' ? result(given) : result('', [given]);
      },
      select: (n, candidates) => opts.select?.(n, candidates),
      wait: (machine) => {
        for (const r of pendingRequests(machine.state)) decide(machine.state, r.id, { kind: 'answer', text: opts.answer ?? 'yes', at: 0, by: 'tester' });
      },
    },
    { maxSteps: 200 },
  );
  if (last.kind !== 'end') throw new Error(`unexpected command ${last.kind}`);
  return { speakers: waves.flat(), end: last, m, selections: commands.filter((c) => c.kind === 'select').length };
}

const THREE = (termination: string, extra = '') => `name: s
agents:
  first_agent: { instructions: "1", handoffs: [second_agent, third_agent, user] }
  second_agent: { instructions: "2", handoffs: [third_agent] }
  third_agent: { instructions: "3", handoffs: [first_agent] }
collaboration:
  topology: swarm
  agents: [first_agent, second_agent, third_agent]
${extra}  termination: { any_of: [${termination}] }
`;

describe('a swarm in the round machine', () => {
  it('AutoGen: HandoffTermination("third_agent") stops on the transfer to third_agent, before it speaks', () => {
    const r = driveTeam(compile(THREE('{ handoff: third_agent }')), { first_agent: [to('second_agent')], second_agent: [to('third_agent')] });
    expect(r.speakers).toEqual(['first_agent', 'second_agent']);
    expect(r.end.end).toMatchObject({ status: 'completed', reason: 'handoff', reasonText: 'handoff: second_agent handed off to third_agent' });
    expect(r.m.state.usage.handoffs).toBe(2);
  });

  it('AutoGen: the swarm goes on through its handoffs until the cap: three handoffs around the ring, the fourth speaker is the first again', () => {
    const r = driveTeam(compile(THREE('{ text_mention: NEVER }', '  max_turns: 4\n')), {
      first_agent: [to('second_agent')],
      second_agent: [to('third_agent')],
      third_agent: [to('first_agent')],
    });
    expect(r.speakers).toEqual(['first_agent', 'second_agent', 'third_agent', 'first_agent']);
    expect(r.end.end).toMatchObject({ status: 'exhausted', reason: 'max_turns' });
  });

  it('AutoGen resume, troupe-style: a transfer to user waits for the answer in the same run, and the agent speaks again with it', () => {
    const r = driveTeam(compile(THREE('{ text_mention: DONE }')), { first_agent: [to('user', 'which one?'), 'DONE with the answer'] }, { answer: 'the blue one' });
    expect(r.speakers).toEqual(['first_agent', 'first_agent']);
    expect(r.end.end.reason).toBe('text_mention');
    // the question and its answer are in the shared thread where they happened, not in a note
    expect(r.m.state.thread.map(({ agent, kind, to, text }) => ({ agent, kind, to, text }))).toEqual([
      { agent: 'first_agent', kind: 'question', to: 'user', text: 'which one?' },
      { agent: 'user', kind: 'answer', to: 'first_agent', text: 'the blue one' },
      { agent: 'first_agent', kind: undefined, to: undefined, text: 'DONE with the answer' },
    ]);
    expect(r.m.state.notes['first_agent']).toBeUndefined();
  });

  it('without a transfer the speaker keeps the turn', () => {
    const r = driveTeam(compile(THREE('{ text_mention: NEVER }', '  max_turns: 3\n')), { first_agent: ['a', 'b', to('second_agent')] });
    expect(r.speakers).toEqual(['first_agent', 'first_agent', 'first_agent']);
  });

  it('the transfer and its message are in the shared thread the target reads, not a note beside it', () => {
    const r = driveTeam(compile(THREE('{ handoff: third_agent }')), { first_agent: [to('second_agent', 'the printer is on fire')], second_agent: [to('third_agent')] });
    expect(r.m.state.thread.map(({ agent, kind, to, text }) => ({ agent, kind, to, text }))).toEqual([
      { agent: 'first_agent', kind: 'handoff', to: 'second_agent', text: 'the printer is on fire' },
      { agent: 'second_agent', kind: 'handoff', to: 'third_agent', text: '' },
    ]);
    expect(r.m.state.notes['second_agent']).toBeUndefined();
    expect(r.speakers.slice(0, 2)).toEqual(['first_agent', 'second_agent']);
  });
});

describe('handoffs in a graph, in the round machine', () => {
  it('a transfer follows exactly its edge, and a back edge it follows counts for its loop', () => {
    const yaml = `name: g
agents:
  a: { instructions: "A." }
  b: { instructions: "B.", handoffs: edges }
  c: { instructions: "C." }
collaboration:
  flow: [parent -> a, a -> b, b -> a, b -> c, c -> parent]
  max_iterations: 2
`;
    const r = driveTeam(compile(yaml), { b: [to('a')] });
    // static routing would send b's output to a and c; the transfer sends it to a alone
    expect(r.speakers).toEqual(['a', 'b', 'a', 'b']);
    expect(r.m.state.round.loopCounters).toEqual({ 'a,b': 2 });
    expect(r.end.end).toMatchObject({ status: 'exhausted', reason: 'max_iterations' });
  });
});

const CREW = (extra = '') => `name: c
agents:
  planner: { instructions: "Plan." }
  coder: { instructions: "Code." }
  reviewer: { instructions: "Review." }
collaboration:
  topology: selector
  agents: [planner, coder, reviewer]
  max_turns: 4
${extra}`;

describe('a selector team in the round machine', () => {
  it('asks the selector before every turn, the previous speaker no candidate; max_turns ends it', () => {
    const asked: string[][] = [];
    const r = driveTeam(compile(CREW()), {}, {
      select: (_n, candidates) => {
        asked.push(candidates);
        return candidates.at(-1);
      },
    });
    expect(r.speakers).toEqual(['reviewer', 'coder', 'reviewer', 'coder']);
    expect(asked).toEqual([
      ['planner', 'coder', 'reviewer'],
      ['planner', 'coder'],
      ['planner', 'reviewer'],
      ['planner', 'coder'],
    ]);
    expect(r.end.end).toMatchObject({ status: 'exhausted', reason: 'max_turns' });
    expect(r.m.state.usage.selectorCalls).toBe(4);
    expect(r.m.state.usage.totalTokens).toBe(4 * 2 + 4 * 4);
  });

  it('no valid answer falls back to list order after the previous speaker, with a warning', () => {
    const r = driveTeam(compile(CREW()), {}, { select: (n) => (n === 2 ? undefined : 'planner') });
    expect(r.speakers).toEqual(['planner', 'coder', 'planner', 'coder']);
    expect(r.m.state.warnings).toContain(SELECTOR_TEXTS.fallback(1, 'coder'));
  });

  it('a speaker the selector may not choose is never dispatched: the turn falls back', () => {
    const r = driveTeam(compile(CREW()), {}, { select: () => 'planner' });
    // turn 2: planner spoke last and repeats are not allowed
    expect(r.speakers.slice(0, 2)).toEqual(['planner', 'coder']);
  });

  it('with repeats allowed and one agent left to choose from, no selector call is made', () => {
    const yaml = `name: c
agents:
  a: { instructions: "A." }
  b: { instructions: "B." }
collaboration:
  topology: selector
  agents: [a, b]
  max_turns: 3
`;
    const r = driveTeam(compile(yaml), {}, { select: (_n, c) => c[0] });
    // turn 1 has two candidates; after that the one agent that did not just speak is chosen without a call
    expect(r.speakers).toEqual(['a', 'b', 'a']);
    expect(r.selections).toBe(1);
  });
});

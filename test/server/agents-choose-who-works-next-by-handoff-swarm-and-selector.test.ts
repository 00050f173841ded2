/**
 * Dynamic teams (docs/teams.md), through the real workflow, worker and HTTP stub:
 *
 * - handoffs: a transfer chosen by the model replaces static routing; two transfers in one reply, the
 *   first wins and the agent is told at its next turn; a transfer to an agent that is not offered is
 *   an error text for the model and the run goes on; `transfer_to_user` is a durable human request,
 *   across a worker restart, answered with `troupe answer`, and the answer goes back to the agent;
 * - a swarm keeps the turn with its speaker until a transfer, and `max_turns` bounds a ping-pong;
 * - a selector team asks `selectSpeaker` before each turn: an invalid name twice then a valid one, a
 *   fallback after `max_attempts`, and one model call per turn at most;
 * - the conditions `handoff`, `source_match` and `tool_called` end runs for their reasons.
 */
import { HANDOFF_TEXTS } from '../../src/core/teams/handoffs';
import { SELECTOR_TEXTS } from '../../src/core/teams/selector';
import { PROMPT_TEXTS } from '../../src/core/prompts/build';
import { defaultPayloadConverter } from '@temporalio/client';
import type { RunResult } from '../../src/core/ending/result';
import type { TranscriptStep } from '../../src/core/state/state';
import { transcriptQuery } from '../../src/contract';
import { troupe } from '../helpers/cli';
import { waitForStatus, type Harness } from '../helpers/runs';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const transfer = (to: string, message?: string) => ({ name: `transfer_to_${to}`, arguments: message ? { message } : {} });

const DESK = `
name: desk
agents:
  triage: { instructions: "Route the request.", handoffs: edges }
  billing: { description: Handles invoices and refunds, instructions: "Bill." }
  tech: { description: Fixes technical problems, instructions: "Fix." }
collaboration:
  flow: [parent -> triage, triage -> billing, triage -> tech, billing -> parent, tech -> parent]
`;

const SWARM = (termination: string, extra = '') => `
name: swarm
agents:
  alice: { instructions: "Talk.", handoffs: [bob, user] }
  bob: { instructions: "Talk.", handoffs: [alice] }
collaboration:
  topology: swarm
  agents: [alice, bob]
${extra}  termination: { any_of: [${termination}] }
`;

const CREW = (extra = '') => `
name: crew
agents:
  planner: { description: Plans the work, instructions: "Plan." }
  coder: { description: Writes the code, instructions: "Code." }
  reviewer: { description: Reviews the code, instructions: "Review." }
collaboration:
  topology: selector
  agents: [planner, coder, reviewer]
  max_turns: 3
${extra}`;

describe('agents choose who works next', () => {
  let t: ToolsHarness;
  let h: Harness;
  beforeAll(async () => {
    t = await startToolsHarness();
    h = t.h;
    process.env.TROUPE_TASK_QUEUE = h.worker.taskQueue;
  });
  afterAll(async () => {
    delete process.env.TROUPE_TASK_QUEUE;
    await t?.close();
  });
  beforeEach(() => h.stub.reset());

  /** Run to its end: the result, its transcript, and its activities as the Temporal UI lists them (type and label). */
  async function runWithSteps(yaml: string): Promise<RunResult & { transcript: TranscriptStep[]; activities: string[] }> {
    const handle = await h.start(yaml);
    const result = await handle.result();
    const history = await handle.fetchHistory();
    const activities = history.events!.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [`${e.activityTaskScheduledEventAttributes.activityType!.name}: ${defaultPayloadConverter.fromPayload(e.userMetadata!.summary!)}`] : [],
    );
    return { ...result, transcript: await handle.query(transcriptQuery), activities };
  }

  test('a transfer chosen by the model replaces static routing, with its message, in one model call', async () => {
    h.stub.script('triage', [{ toolCalls: [transfer('tech', 'the printer is on fire')] }]);
    const r = await runWithSteps(DESK);
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'tech reply 1' });
    // static routing would have sent triage's output to billing and tech
    expect(h.stub.hits('billing')).toBe(0);
    expect(h.stub.hits('triage')).toBe(1);
    expect(r.usage.handoffs).toBe(1);
    const [offered] = h.stub.requestsFor('triage');
    expect(offered.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['transfer_to_billing', 'transfer_to_tech']);
    expect(offered.body.tools[1].function.description).toBe(HANDOFF_TEXTS.agentDescription('tech', 'Fixes technical problems'));
    expect(h.stub.requestsFor('tech')[0].prompt).toContain('the printer is on fire');
    expect(r.transcript.find((s) => s.agent === 'triage')?.handoff).toEqual({ to: 'tech', message: 'the printer is on fire' });
    // the transfer is a tool call the workflow applies: no activity beyond the agents' own calls
    expect(r.activities).toEqual(['callAgent: triage · round 1 · wave 1', 'callAgent: tech · round 1 · wave 2 · via handoff from triage']);
  });

  test('an agent with worker tools: the reply\'s tool call runs, the transfer is made, and no further model call follows', async () => {
    h.stub.script('triage', [{ toolCalls: [{ name: 'shout', arguments: { text: 'hi', times: 1 } }, transfer('billing', 'refund')] }]);
    const r = await runWithSteps(DESK.replace('handoffs: edges }', 'handoffs: edges, tools: [shout] }'));
    expect(r).toMatchObject({ status: 'completed', finalText: 'billing reply 1' });
    expect(h.stub.hits('triage')).toBe(1);
    expect(h.stub.hits('tech')).toBe(0);
    expect(r.usage.toolCalls?.total).toBe(1);
    expect(r.transcript[0]).toMatchObject({ agent: 'triage', handoff: { to: 'billing', message: 'refund' }, tools: [expect.objectContaining({ tool: 'shout', ok: true })] });
    expect(r.activities).toEqual(['callModel: triage · round 1 · wave 1 · step 1', 'callTool: shout · triage', 'callAgent: billing · round 1 · wave 2 · via handoff from triage']);
  });

  test('two transfers in one reply: the first wins, the other is refused and the agent hears it next turn', async () => {
    const LOOPED = DESK.replace('tech -> parent]', 'tech -> triage]');
    h.stub.script('triage', [{ toolCalls: [transfer('tech'), transfer('billing')] }, { toolCalls: [transfer('billing')] }]);
    const r = await h.run(LOOPED.replace('collaboration:', 'collaboration:\n  max_iterations: 2'));
    expect(r.status).toBe('completed');
    expect(h.stub.hits('tech')).toBe(1);
    expect(h.stub.hits('billing')).toBe(1);
    expect(r.warnings).toContain(HANDOFF_TEXTS.refusedWarning('triage', 'tech', ['billing']));
    // the reply's second call got the error text, and no further model call was made for that turn
    expect(h.stub.requestsFor('triage')[1].prompt).toContain(HANDOFF_TEXTS.refusedNote('tech', ['billing']));
  });

  test('a transfer to an agent that is not offered is an error text for the model, and the run goes on', async () => {
    h.stub.script('triage', [{ toolCalls: [transfer('legal')] }, { toolCalls: [transfer('billing')] }]);
    const r = await h.run(DESK);
    expect(r).toMatchObject({ status: 'completed', finalText: 'billing reply 1' });
    const retry = h.stub.requestsFor('triage')[1].body.messages.at(-1);
    expect(retry).toMatchObject({ role: 'tool', content: expect.stringContaining("unknown tool 'transfer_to_legal'") });
    expect(retry.content).toContain('transfer_to_billing');
  });

  test('transfer_to_user waits for a human across a worker restart; the answer goes back to the agent that handed off', async () => {
    h.stub.script('alice', [{ toolCalls: [transfer('user', 'Which invoice do you mean?')] }, { text: 'Refund issued for invoice 42.' }]);
    const handle = await h.start(SWARM('{ text_mention: Refund }'));
    const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    expect(waiting.pending).toEqual([expect.objectContaining({ id: 'r1', kind: 'handoff', agent: 'alice', summary: 'Which invoice do you mean?' })]);
    await h.restartWorker();
    expect((await troupe('answer', handle.workflowId, 'invoice 42')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'text_mention', finalText: 'Refund issued for invoice 42.' });
    expect(h.stub.hits('alice')).toBe(2);
    expect(h.stub.requestsFor('alice')[1].prompt).toContain('invoice 42');
  });

  test('the shared thread keeps each transfer where it happened: the specialist\'s turn opens on the handoff message, then sees it, its question and the answer in order, and the answer again as a note to act on', async () => {
    const TRIAGE = `
name: support
agents:
  triage: { instructions: "Route.", handoffs: [billing] }
  billing: { instructions: "Bill.", handoffs: [user] }
collaboration:
  topology: swarm
  agents: [triage, billing]
  termination: { any_of: [{ text_mention: TERMINATE }] }
`;
    h.stub.script('triage', [{ toolCalls: [transfer('billing', 'The customer was charged twice this month.')] }]);
    h.stub.script('billing', [{ toolCalls: [transfer('user', 'Which invoice was charged twice?')] }, { text: 'Refunded INV-0342. TERMINATE' }]);
    const handle = await h.start(TRIAGE);
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    expect((await troupe('answer', handle.workflowId, 'The invoice is INV-0342.')).code).toBe(0);
    expect(await handle.result()).toMatchObject({ status: 'completed', reason: 'text_mention' });
    const [first, second] = h.stub.requestsFor('billing').map((r) => r.prompt as string);
    // the transfer that gives billing its turn is the turn's note, not yet a thread entry
    expect(first).toContain(`${PROMPT_TEXTS.noteHeading(PROMPT_TEXTS.noteLabels.handoff, 'triage')}\nThe customer was charged twice this month.`);
    expect(first).not.toContain(PROMPT_TEXTS.threadHeading);
    const order = [
      `${PROMPT_TEXTS.threadEntry('triage', false)}${PROMPT_TEXTS.threadEvent.handoff('billing', true)}\nThe customer was charged twice this month.`,
      `${PROMPT_TEXTS.threadEntry('billing', true)}${PROMPT_TEXTS.threadEvent.question()}\nWhich invoice was charged twice?`,
      `${PROMPT_TEXTS.threadEntry('user', false)}${PROMPT_TEXTS.threadEvent.answer('billing', true)}\nThe invoice is INV-0342.`,
    ].map((entry) => second.indexOf(entry));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // the transfer is said once; the answer also closes the prompt, as a note that says to act on it
    expect(second.split('charged twice this month').length - 1).toBe(1);
    expect(second.endsWith(`${PROMPT_TEXTS.noteHeading(PROMPT_TEXTS.noteLabels.human_answer, 'user')}\nThe invoice is INV-0342.\n\n${PROMPT_TEXTS.actOnAnswer}`)).toBe(true);
  });

  test('a swarm keeps the turn with its speaker until it transfers; max_turns bounds a ping-pong', async () => {
    h.stub.script('alice', [{ text: 'thinking' }, { toolCalls: [transfer('bob')] }, { toolCalls: [transfer('bob')] }]);
    h.stub.script('bob', [{ toolCalls: [transfer('alice')] }]);
    const r = await runWithSteps(SWARM('{ text_mention: NEVER }', '  max_turns: 5\n'));
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_turns' });
    expect(r.transcript.map((s) => s.agent)).toEqual(['alice', 'alice', 'bob', 'alice', 'bob']);
    expect(r.usage.agentCalls).toBe(5);
    expect(h.stub.requestsFor('alice')[0].messages[0].content).toContain(PROMPT_TEXTS.swarmTurn);
    expect(h.stub.requestsFor('alice')[0].messages[0].content).toContain(PROMPT_TEXTS.handoffContract);
  });

  test('handoff: bob ends the run when alice transfers to bob; handoff: user ends it instead of asking', async () => {
    h.stub.script('alice', [{ toolCalls: [transfer('bob')] }]);
    expect(await h.run(SWARM('{ handoff: bob }'))).toMatchObject({ status: 'completed', reason: 'handoff', reasonText: 'handoff: alice handed off to bob' });
    h.stub.reset();
    h.stub.script('alice', [{ toolCalls: [transfer('user', 'over to you')] }]);
    const r = await h.run(SWARM('{ handoff: user }'));
    expect(r).toMatchObject({ status: 'completed', reason: 'handoff', reasonText: 'handoff: alice handed off to user' });
    expect(h.stub.hits('alice')).toBe(1);
  });

  test('a selector names an invalid speaker twice, then a valid one: one activity for the turn, feedback in between', async () => {
    h.stub.script('selector:team', [{ text: 'the best one' }, { text: 'planner and coder' }, { text: 'coder' }, { text: 'reviewer' }, { text: 'planner' }]);
    const r = await runWithSteps(CREW());
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_turns' });
    expect(r.transcript.map((s) => s.agent)).toEqual(['coder', 'reviewer', 'planner']);
    expect(r.transcript[0].selected).toEqual({ attempts: 3 });
    // a turn adds exactly one activity, whatever the selector's attempts
    expect(r.activities).toEqual([
      'selectSpeaker: select speaker · round 1 · turn 1',
      'callAgent: coder · round 1 · wave 1 · selected',
      'selectSpeaker: select speaker · round 1 · turn 2',
      'callAgent: reviewer · round 1 · wave 2 · selected',
      'selectSpeaker: select speaker · round 1 · turn 3',
      'callAgent: planner · round 1 · wave 3 · selected',
    ]);
    expect(r.usage.selectorCalls).toBe(5);
    const first = h.stub.requestsFor('selector:team');
    expect(first[1].messages.at(-1)).toEqual({ role: 'user', content: SELECTOR_TEXTS.noName(['planner', 'coder', 'reviewer']) });
    expect(first[2].messages.at(-1)).toEqual({ role: 'user', content: SELECTOR_TEXTS.several(['planner', 'coder', 'reviewer']) });
    // the previous speaker is no candidate (allow_repeated_speaker is false)
    expect(first[3].messages[0].content).toContain("['planner', 'reviewer']");
  });

  test('a selector that never names a candidate falls back to list order, with a warning', async () => {
    h.stub.script('selector:team', [{ text: 'no idea' }]);
    const r = await runWithSteps(CREW('  selector: { max_attempts: 2 }\n'));
    expect(r.transcript.map((s) => s.agent)).toEqual(['planner', 'coder', 'reviewer']);
    expect(r.transcript[0].selected).toEqual({ attempts: 2, fallback: true });
    expect(r.warnings).toContain(SELECTOR_TEXTS.fallback(2, 'planner'));
    expect(h.stub.hits('selector:team')).toBe(6);
  });

  test('source_match ends the run once a named agent answered, before the next one is called', async () => {
    const yaml = `
name: sm
agents:
  a: { instructions: "A." }
  b: { instructions: "B." }
  c: { instructions: "C." }
collaboration:
  topology: pipeline
  agents: [a, b, c]
  termination: { any_of: [{ source_match: [c, b] }] }
`;
    const r = await h.run(yaml);
    expect(r).toMatchObject({ status: 'completed', reason: 'source_match', reasonText: "source_match: 'b' answered" });
    expect(h.stub.hits('c')).toBe(0);
  });

  test('tool_called ends the run once the named tool ran', async () => {
    const yaml = `
name: tc
agents:
  a: { instructions: "Work.", tools: [signal] }
collaboration:
  flow: [parent -> a, a -> a, a -> parent]
  max_iterations: 3
  termination: { any_of: [{ tool_called: signal }] }
`;
    h.stub.script('a', [{ text: 'first' }, { toolCalls: [{ name: 'signal', arguments: { type: 'done' } }] }, { text: 'second' }]);
    const r = await h.run(yaml);
    expect(r).toMatchObject({ status: 'completed', reason: 'tool_called', reasonText: "tool_called: tool 'signal' was executed" });
    expect(h.stub.hits('a')).toBe(3);
  });
});

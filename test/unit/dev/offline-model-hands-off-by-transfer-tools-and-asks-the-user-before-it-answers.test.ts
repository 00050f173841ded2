/**
 * The offline model plays handoffs (docs/teams.md, "Handoffs"): the real agent activity sends it
 * prompts built by troupe's prompt builder with the agent's real `transfer_to_<target>` tools, as
 * the workflow does, and it transfers, asks the user and answers deterministically, so
 * examples/triage-swarm.yaml ends on its stop word.
 */
import { turnOffer } from '../../../src/core/llm/next-step';
import * as path from 'node:path';
import OpenAI from 'openai';
import { createActivities } from '../../../src/activities';
import { loadRoleFile } from '../../../src/config-file';
import { describeTermination } from '../../../src/core/conditions/describe';
import { loadRoleConfig } from '../../../src/core/config/load';
import type { CompiledGraph } from '../../../src/core/graph/types';
import type { AgentCallResult, ToolEvent } from '../../../src/core/llm/contract';
import { buildAgentMessages, type PromptNote } from '../../../src/core/prompts/build';
import { handoffDefinition, handoffTools } from '../../../src/core/teams/handoffs';
import { OFFLINE_HANDOFF_TEXTS } from '../../../src/dev/offline-handoffs';
import { startOfflineModel, type OfflineModel } from '../../../src/dev/offline-model';
import { OFFLINE_TEXTS } from '../../../src/dev/offline-replies';
import { activityEnv, runIn } from '../../helpers/activity-env';

let model: OfflineModel;
let acts: ReturnType<typeof createActivities>;

beforeAll(async () => {
  model = await startOfflineModel();
  acts = createActivities({ baseUrl: model.url, env: {} });
});
afterAll(() => model.close());

const desk = (): CompiledGraph => loadRoleFile(path.join(__dirname, '../../../examples/triage-swarm.yaml')).graph!;

/** One dispatch as the workflow makes it: the prompt of `agent` over the thread and its notes, its transfer tools. */
function dispatch(graph: CompiledGraph, agent: string, thread: Array<{ agent: string; text: string }>, notes: PromptNote[] = [], task = graph.task ?? '', maxToolRounds?: number) {
  const messages = buildAgentMessages({
    graph,
    agent,
    task,
    round: 1,
    wave: thread.length + 1,
    iteration: 0,
    maxIterations: graph.maxIterations,
    stopConditions: describeTermination(graph.termination),
    ownRecent: [],
    triggers: [{ from: 'parent', text: task }],
    thread: graph.context === 'thread' ? thread : [],
    notes,
  });
  return runIn(activityEnv(), acts.callAgent, {
    workflowId: 'wf-desk',
    agent,
    model: graph.agents[agent]!.model,
    messages,
    offer: { ...turnOffer(graph, agent), ...(maxToolRounds !== undefined ? { maxToolRounds } : {}) },
    timeoutMs: 30_000,
  });
}

const transferOf = (r: AgentCallResult) => r.toolEvents.find((e): e is Extract<ToolEvent, { tool: 'handoff' }> => e.tool === 'handoff');

test('triage transfers to billing when the task names billing work: one call, a labelled text naming the words, a message for billing', async () => {
  const r = await dispatch(desk(), 'triage', []);
  expect(r.llmCalls).toBe(1);
  expect(transferOf(r)).toEqual({ tool: 'handoff', target: 'billing', message: expect.stringContaining(OFFLINE_TEXTS.label) });
  expect(r.text).toBe(OFFLINE_HANDOFF_TEXTS.routeText('triage', 'billing', ['invoice', 'charged', 'refund']));
});

test('the specialist handed the work asks the user one question first, then answers with the stop word its instructions name', async () => {
  const graph = desk();
  const first = await dispatch(graph, 'triage', []);
  const handed = transferOf(first)!;
  const thread = [{ agent: 'triage', text: first.text }];

  const asks = await dispatch(graph, 'billing', thread, [{ kind: 'handoff', text: handed.message!, from: 'triage' }]);
  expect(transferOf(asks)).toEqual({ tool: 'handoff', target: 'user', message: expect.stringMatching(/^\[offline model\] To finish ".+", please give me the details/) });
  expect(asks.text).toBe(OFFLINE_HANDOFF_TEXTS.askText('billing'));
  expect(asks.text).not.toContain('TERMINATE');

  thread.push({ agent: 'billing', text: asks.text });
  const answers = await dispatch(graph, 'billing', thread, [{ kind: 'human_answer', text: 'Invoice 2024-031: two charges of 49 EUR on March 3.', from: 'human' }]);
  expect(answers.toolEvents).toEqual([]);
  expect(answers.text).toContain('with your answer ("Invoice 2024-031: two charges of 49 EUR on March 3.")');
  expect(answers.text.split('\n').pop()).toBe('TERMINATE');
});

test('an agent that keeps the turn after answering answers again and never asks the user twice', async () => {
  const graph = desk();
  const thread = [
    { agent: 'triage', text: 'to billing' },
    { agent: 'billing', text: OFFLINE_HANDOFF_TEXTS.askText('billing') },
    { agent: 'billing', text: `${OFFLINE_TEXTS.label} billing: done.\nTERMINATE` },
  ];
  const again = await dispatch(graph, 'billing', thread);
  expect(again.toolEvents).toEqual([]);
  expect(again.text.startsWith(`${OFFLINE_TEXTS.label} billing:`)).toBe(true);
});

test('a router that cannot tell who should take the task asks the user which one, and routes by the answer', async () => {
  const graph = desk();
  const task = 'Something is wrong with my account.';
  const asks = await dispatch(graph, 'triage', [], [], task);
  expect(transferOf(asks)).toEqual({ tool: 'handoff', target: 'user', message: `${OFFLINE_TEXTS.label} Who should handle "${task}": billing or tech? Please say what the request is about.` });
  expect(asks.text).toBe(OFFLINE_HANDOFF_TEXTS.whichText('triage'));

  const routes = await dispatch(graph, 'triage', [{ agent: 'triage', text: asks.text }], [{ kind: 'human_answer', text: 'The app crashes every time I open it.', from: 'human' }], task);
  expect(transferOf(routes)).toMatchObject({ target: 'tech' });
  expect(routes.text).toBe(OFFLINE_HANDOFF_TEXTS.routeText('triage', 'tech', ['crashes']));
});

test('in a graph, an agent whose task names none of its targets answers in text, so static routing follows its edges', async () => {
  const graph = loadRoleConfig(
    `name: g
agents:
  router: { instructions: Route it., handoffs: edges }
  billing: { description: Handles invoices and refunds, instructions: Bills. }
  tech: { description: Fixes crashes and errors, instructions: Fixes. }
collaboration:
  flow: [parent -> router, router -> billing, router -> tech, billing -> parent, tech -> parent]
`,
    'role.yaml',
  ).graph!;
  const none = await dispatch(graph, 'router', [], [], 'Write a haiku about autumn.');
  expect(none.toolEvents).toEqual([]);
  expect(none.text).toBe(`${OFFLINE_TEXTS.label} ${OFFLINE_TEXTS.answer('router', 'Write a haiku about autumn.')}`);
  const named = await dispatch(graph, 'router', [], [], 'My refund never arrived.');
  expect(transferOf(named)).toMatchObject({ target: 'billing' });
});

test('on the closing call (tool_choice none) it answers in text instead of transferring', async () => {
  const r = await dispatch(desk(), 'triage', [], [], undefined, 0);
  expect(r.toolEvents).toEqual([]);
  expect(r.text.startsWith(`${OFFLINE_TEXTS.label} triage:`)).toBe(true);
});

test('the same request always gets the same transfer, and a worker tool named transfer_to_… is not taken for one', async () => {
  const graph = desk();
  const client = new OpenAI({ baseURL: model.url, apiKey: 'unused', maxRetries: 0 });
  const messages = buildAgentMessages({ graph, agent: 'triage', task: graph.task!, round: 1, wave: 1, iteration: 0, maxIterations: 0, ownRecent: [], triggers: [], thread: [], notes: [] });
  const ask = (tools: OpenAI.Chat.ChatCompletionTool[]) =>
    client.chat.completions.create({ model: 'm', messages, tools }, { headers: { 'x-troupe-agent': 'triage', 'x-troupe-kind': 'agent' } });
  const transfers = handoffTools(graph, 'triage').map(handoffDefinition) as OpenAI.Chat.ChatCompletionTool[];
  const [a, b] = [await ask(transfers), await ask(transfers)];
  const decision = (r: typeof a) => [r.choices[0]!.message.content, r.choices[0]!.message.tool_calls?.map((c) => c.type === 'function' && c.function)];
  expect(decision(a)).toEqual(decision(b));
  expect(a.choices[0]!.message.tool_calls?.map((c) => c.type === 'function' && c.function.name)).toEqual(['transfer_to_billing']);

  const lookalike = { type: 'function' as const, function: { name: 'transfer_to_bank', description: 'Moves money.', parameters: { type: 'object', properties: { amount: { type: 'number' } } } } };
  const worker = await ask([lookalike]);
  expect(worker.choices[0]!.message.tool_calls?.map((c) => c.type === 'function' && [c.function.name, c.function.arguments])).toEqual([['transfer_to_bank', '{"amount":0}']]);
});

/**
 * The offline model plays a selector team's selector (docs/teams.md, "Selector teams"): the real
 * `selectSpeaker` activity sends it the prompt the workflow renders (`selectTurn`), and it names
 * the candidate who spoke least recently, valid at the first attempt; after feedback it picks from
 * the names the feedback lists. Played with the offline agents, examples/selector-team.yaml ends
 * when the reviewer approves.
 */
import { turnOffer } from '../../../src/core/llm/next-step';
import * as path from 'node:path';
import OpenAI from 'openai';
import { createActivities } from '../../../src/activities';
import { loadRoleFile } from '../../../src/config-file';
import { describeTermination } from '../../../src/core/conditions/describe';
import type { CompiledGraph } from '../../../src/core/graph/types';
import { buildAgentMessages } from '../../../src/core/prompts/build';
import { createRunState, type RunState } from '../../../src/core/state/state';
import { SELECTOR_TEXTS } from '../../../src/core/teams/selector';
import { selectTurn } from '../../../src/core/teams/turns';
import { startOfflineModel, type OfflineModel } from '../../../src/dev/offline-model';
import { OFFLINE_SELECTOR_TEXTS, offlineSelection } from '../../../src/dev/offline-selector';
import { activityEnv, runIn } from '../../helpers/activity-env';

let model: OfflineModel;
let acts: ReturnType<typeof createActivities>;

beforeAll(async () => {
  model = await startOfflineModel();
  acts = createActivities({ baseUrl: model.url, env: {} });
});
afterAll(() => model.close());

const crew = (): CompiledGraph => loadRoleFile(path.join(__dirname, '../../../examples/selector-team.yaml')).graph!;

/** The selector's answer for the next turn of `state`, asked as the workflow asks it. */
function select(graph: CompiledGraph, state: RunState) {
  const turn = selectTurn(graph, state);
  return runIn(activityEnv(), acts.selectSpeaker, {
    workflowId: 'wf-crew',
    model: graph.selector!.model,
    prompt: turn.prompt,
    participants: turn.participants,
    candidates: turn.candidates,
    ...(turn.previous !== undefined ? { previous: turn.previous } : {}),
    maxAttempts: graph.selector!.maxAttempts,
    timeoutMs: 30_000,
  });
}

/** `agent` spoke: its text joins the thread and it is the previous speaker. */
function spoke(state: RunState, agent: string, text: string): void {
  state.thread.push({ agent, text, seq: state.thread.length + 1 });
  state.round.lastWave = [agent];
  state.round.messages += 1;
}

test('with only the task in the history it names the first candidate, accepted at the first attempt', async () => {
  const graph = crew();
  const answer = await select(graph, createRunState(graph, graph.task!, 'wf-crew', 0));
  expect(answer).toMatchObject({ speaker: 'planner', attempts: 1, rejected: [] });
});

test('played with the offline agents, the team speaks in list order and the reviewer approves once it has read the others', async () => {
  const graph = crew();
  const state = createRunState(graph, graph.task!, 'wf-crew', 0);
  const turns: Array<{ agent: string; attempts: number; text: string }> = [];
  for (let turn = 1; turn <= 3; turn++) {
    const answer = await select(graph, state);
    const agent = answer.speaker!;
    const messages = buildAgentMessages({
      graph,
      agent,
      task: state.task,
      round: 1,
      wave: turn,
      iteration: 0,
      maxIterations: 0,
      stopConditions: describeTermination(graph.termination),
      ownRecent: [],
      triggers: [],
      thread: state.thread,
      notes: [],
    });
    const r = await runIn(activityEnv(), acts.callAgent, { workflowId: 'wf-crew', agent, model: graph.agents[agent]!.model, messages, offer: turnOffer(graph, agent), timeoutMs: 30_000 });
    turns.push({ agent, attempts: answer.attempts, text: r.text });
    spoke(state, agent, r.text);
  }
  expect(turns.map((t) => [t.agent, t.attempts])).toEqual([
    ['planner', 1],
    ['coder', 1],
    ['reviewer', 1],
  ]);
  expect(turns.map((t) => t.text.includes('APPROVE'))).toEqual([false, false, true]);
});

test('with repeats allowed it still moves on to the candidate who spoke least recently', async () => {
  const graph = crew();
  graph.selector = { ...graph.selector!, allowRepeatedSpeaker: true };
  const state = createRunState(graph, graph.task!, 'wf-crew', 0);
  spoke(state, 'planner', 'plan');
  spoke(state, 'coder', 'code');
  spoke(state, 'reviewer', 'review');
  spoke(state, 'coder', 'code again');
  expect(selectTurn(graph, state).candidates).toEqual(['planner', 'coder', 'reviewer']);
  expect(await select(graph, state)).toMatchObject({ speaker: 'planner', attempts: 1 });
});

test('after feedback it names one of the candidates the feedback lists', async () => {
  const graph = crew();
  const state = createRunState(graph, graph.task!, 'wf-crew', 0);
  const client = new OpenAI({ baseURL: model.url, apiKey: 'unused', maxRetries: 0 });
  const reply = async (feedback: string) => {
    const r = await client.chat.completions.create(
      {
        model: 'm',
        messages: [
          { role: 'system', content: selectTurn(graph, state).prompt },
          { role: 'user', content: SELECTOR_TEXTS.ask(undefined, ['planner', 'coder', 'reviewer']) },
          { role: 'assistant', content: 'planner' },
          { role: 'user', content: feedback },
        ],
      },
      { headers: { 'x-troupe-agent': 'team', 'x-troupe-kind': 'selector' } },
    );
    return r.choices[0]!.message.content;
  };
  expect(await reply(SELECTOR_TEXTS.repeated(['coder', 'reviewer']))).toBe('coder');
  expect(await reply(SELECTOR_TEXTS.notCandidate('planner', ['reviewer']))).toBe('reviewer');
});

test('a custom prompt without {participants}: the ask after it lists the candidates, so a valid name comes at the first attempt', async () => {
  const graph = crew();
  graph.selector = { ...graph.selector!, prompt: 'Who speaks next?\n\n{history}' };
  const state = createRunState(graph, graph.task!, 'wf-crew', 0);
  spoke(state, 'planner', 'plan');
  const answer = await select(graph, state);
  expect(answer).toMatchObject({ speaker: 'coder', attempts: 1, rejected: [] });
  // with no list of candidates anywhere it names nobody, so the activity's feedback lists them
  expect(offlineSelection([{ role: 'system', content: 'Who speaks next?' }])).toBe(OFFLINE_SELECTOR_TEXTS.noCandidates);
});

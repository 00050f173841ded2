import { ApplicationFailure } from '@temporalio/activity';
import { createActivities } from '../../../src/activities';
import { SELECTOR_LIMITS } from '../../../src/activities/selector';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';
import { FAILURE_TYPES, type SelectSpeakerInput } from '../../../src/core/llm/contract';
import { SELECTOR_TEXTS } from '../../../src/core/teams/selector';
import { activityEnv, runIn, testModel } from '../../helpers/activity-env';
import { completion, errorBody, startMiniLlm, type MiniLlm, type Reply, type SeenRequest } from '../../helpers/mini-llm';

const input: SelectSpeakerInput = {
  workflowId: 'wf-sel',
  model: testModel,
  prompt: 'You are in a role play game. Pick from planner or reviewer.',
  participants: ['planner', 'coder', 'reviewer'],
  candidates: ['planner', 'reviewer'],
  previous: 'coder',
  maxAttempts: 3,
  timeoutMs: 30_000,
};

describe('selectSpeaker', () => {
  let stub: MiniLlm | undefined;
  const start = async (script: (req: SeenRequest, i: number) => Reply) => {
    stub = await startMiniLlm(script);
    return createActivities({ baseUrl: stub.url, env: {} });
  };
  const replies = (...texts: string[]) => (_req: SeenRequest, i: number) => ({
    json: completion({ content: texts[Math.min(i, texts.length - 1)]!, usage: { prompt_tokens: 100 + i, completion_tokens: 3 } }),
  });
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('sends the prompt as the system message, then asks again with each reply and its feedback until a candidate is named', async () => {
    const acts = await start(replies('The Reviewer.', 'coder', 'reviewer'));
    const result = await runIn(activityEnv(), acts.selectSpeaker, input);
    expect(result).toEqual({
      speaker: 'reviewer',
      attempts: 3,
      usage: { promptTokens: 303, completionTokens: 9, totalTokens: 312 },
      rejected: ['The Reviewer.', 'coder'],
    });
    const seen = stub!.requests;
    expect(seen).toHaveLength(3);
    const first = [
      { role: 'system', content: input.prompt },
      { role: 'user', content: "coder just spoke. Which role should act next to move the task forward? Reply with only the role name, one of ['planner', 'reviewer']." },
    ];
    expect(seen[0]!.body.messages).toEqual(first);
    const afterOne = [
      ...first,
      { role: 'assistant', content: 'The Reviewer.' },
      { role: 'user', content: "No valid name was mentioned. Please select from: ['planner', 'reviewer']." },
    ];
    expect(seen[1]!.body.messages).toEqual(afterOne);
    expect(seen[2]!.body.messages).toEqual([
      ...afterOne,
      { role: 'assistant', content: 'coder' },
      { role: 'user', content: "Repeated speaker is not allowed, please select a different name from: ['planner', 'reviewer']." },
    ]);
    for (const req of seen) {
      expect(req.headers['x-troupe-kind']).toBe('selector');
      expect(req.headers['x-troupe-agent']).toBe(SELECTOR_LIMITS.caller);
      expect(req.body.temperature).toBe(testModel.temperature);
      expect(req.body.max_tokens).toBe(testModel.maxTokens);
      expect(req.body.tools).toBeUndefined();
    }
  });

  it('returns no speaker after maxAttempts calls that never name a valid candidate, listing the replies', async () => {
    const long = `Both planner and reviewer could go. ${'x'.repeat(300)}`;
    const acts = await start(replies('nobody', long, 'planner, reviewer', 'planner'));
    const result = await runIn(activityEnv(), acts.selectSpeaker, { ...input, maxAttempts: 3 });
    expect(result.speaker).toBeUndefined();
    expect(result.attempts).toBe(3);
    expect(stub!.requests).toHaveLength(3);
    expect(result.rejected).toEqual(['nobody', `${long.slice(0, SELECTOR_LIMITS.rejectedChars - 1)}…`, 'planner, reviewer']);
    expect(result.rejected[1]).toHaveLength(SELECTOR_LIMITS.rejectedChars);
    expect(result.usage).toEqual({ promptTokens: 303, completionTokens: 9, totalTokens: 312 });
    const several = SELECTOR_TEXTS.several(input.candidates);
    expect(stub!.requests[2]!.body.messages.at(-1)).toEqual({ role: 'user', content: several });
  });

  it('makes no model call for a single candidate', async () => {
    const acts = await start(replies('planner'));
    const result = await runIn(activityEnv(), acts.selectSpeaker, { ...input, candidates: ['reviewer'] });
    expect(result).toEqual({ speaker: 'reviewer', attempts: 0, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, rejected: [] });
    expect(stub!.requests).toHaveLength(0);
  });

  it('refuses a participant that is not a candidate, with feedback listing the candidates, and asks again', async () => {
    const acts = await start(replies('planner', 'reviewer'));
    const narrowed = { ...input, participants: ['planner', 'coder', 'reviewer', 'tester'], candidates: ['reviewer', 'tester'] };
    const result = await runIn(activityEnv(), acts.selectSpeaker, narrowed);
    expect(result).toMatchObject({ speaker: 'reviewer', attempts: 2, rejected: ['planner'] });
    expect(stub!.requests[1]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: "planner cannot be selected for this turn. Please select from: ['reviewer', 'tester'].",
    });
  });

  it('sends a small max_tokens and no temperature when the model sets neither', async () => {
    const acts = await start(replies('planner'));
    const result = await runIn(activityEnv(), acts.selectSpeaker, { ...input, model: { name: 'tiny' } });
    expect(result).toMatchObject({ speaker: 'planner', attempts: 1, rejected: [] });
    const body = stub!.requests[0]!.body;
    expect(body.model).toBe('tiny');
    expect(body.max_tokens).toBe(SELECTOR_LIMITS.maxTokens);
    expect('temperature' in body).toBe(false);
    expect(body.messages[1].content).toBe(SELECTOR_TEXTS.ask('coder', ['planner', 'reviewer']));
  });

  it('fails like the other LLM activities on an HTTP error, naming the selector and its timeout setting', async () => {
    const acts = await start(() => ({ status: 500, json: errorBody('overloaded', 'server_error') }));
    const err = await runIn(activityEnv(), acts.selectSpeaker, input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe(FAILURE_TYPES.retryable);
    expect((err as ApplicationFailure).message).toBe(ACTIVITY_TEXTS.llm.http('selector', 'team', 500, 'overloaded', 'req_1'));
    expect((err as ApplicationFailure).message).toBe('selector team: HTTP 500 overloaded (request id req_1)');
    expect(ACTIVITY_TEXTS.llm.timeout('selector', 'team', 29_000, 30_000)).toContain('collaboration.selector.model.timeout_ms');
  });
});

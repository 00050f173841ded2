/**
 * The built-in offline model, over real HTTP with the `openai` package: labelled, deterministic
 * replies that make the writer/critic review loop end on `score: 90` after three drafts.
 */
import OpenAI, { NotFoundError } from 'openai';
import Ajv from 'ajv';
import { startOfflineModel, type OfflineModel } from '../../../src/dev/offline-model';
import { OFFLINE_SCORES, OFFLINE_TEXTS } from '../../../src/dev/offline-replies';
import { encodeHeaderValue } from '../../../src/core/llm/contract';

const SCORE_RE = /\bscore\b\**\s*[:=]\s*\**\s*(-?\d+(?:\.\d+)?)/i; // the `score: N` reading of docs/semantics.md, "Termination conditions"
const TASK = 'Write a 300-word essay on durable execution for AI agents.';
const CRITIC_SYSTEM =
  'You are a demanding editor.\nEnd your reply with a line of the form `score: N`.\n\n<collaboration>\nYou are the agent "critic" in the graph "essay-review" (review-loop).\n</collaboration>';
const WRITER_SYSTEM = 'You are an experienced technical writer.\n\n<collaboration>\nYou are the agent "writer" in the graph "essay-review" (review-loop).\n</collaboration>';

let model: OfflineModel;
let client: OpenAI;

beforeAll(async () => {
  model = await startOfflineModel();
  client = new OpenAI({ baseURL: model.url, apiKey: 'unused', maxRetries: 0 });
});
afterAll(() => model.close());

type Kind = 'agent' | 'judge' | 'compaction';

async function ask(
  agent: string,
  system: string,
  user: string,
  extra: Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming> = {},
  kind: Kind = 'agent',
) {
  const { data, response } = await client.chat.completions
    .create(
      {
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        ...extra,
      },
      { headers: { 'x-troupe-agent': agent, 'x-troupe-kind': kind } },
    )
    .withResponse();
  return { data, text: data.choices[0]?.message.content ?? '', requestId: response.headers.get('x-request-id') };
}

function writerPrompt(ownLast?: string, critique?: string): string {
  const parts = [`## Task\n${TASK}`];
  if (ownLast) parts.push(`## Your previous results (oldest first)\n### Your result 1 (latest)\n${ownLast}`);
  parts.push(`## Outputs that triggered this turn\n${critique ? `### From critic\n${critique}` : `### From the orchestrator\n${TASK}`}`);
  return parts.join('\n\n');
}

function criticPrompt(draft: string, ownLast?: string): string {
  const parts = [`## Task\n${TASK}`];
  if (ownLast) parts.push(`## Your previous results (oldest first)\n### Your result 1 (latest)\n${ownLast}`);
  parts.push(`## Outputs that triggered this turn\n### From writer\n${draft}`);
  return parts.join('\n\n');
}

test('a first writer turn is a labelled Draft v1 about the task, with usage and a request id', async () => {
  const { data, text, requestId } = await ask('writer', WRITER_SYSTEM, writerPrompt());
  expect(text.startsWith(`${OFFLINE_TEXTS.label} Draft v1: ${TASK}`)).toBe(true);
  expect(text).not.toMatch(SCORE_RE);
  expect(requestId).toMatch(/^offline_\d+$/);
  expect(data.choices[0]?.finish_reason).toBe('stop');
  expect(data.usage?.total_tokens).toBeGreaterThan(0);
});

test.each([
  [1, 60],
  [2, 75],
  [3, 90],
  [4, 90],
])('the critic scores Draft v%i with score: %i', async (k, score) => {
  const ownLast = k > 1 ? `${OFFLINE_TEXTS.label} Review of Draft v${k - 1}.\nscore: 1` : undefined;
  const { text } = await ask('critic', CRITIC_SYSTEM, criticPrompt(`${OFFLINE_TEXTS.label} Draft v${k}: essay`, ownLast));
  expect(text.startsWith(`${OFFLINE_TEXTS.label} Review of Draft v${k}.`)).toBe(true);
  expect(Number(SCORE_RE.exec(text)?.[1])).toBe(score);
});

test('the writer revises to the next draft number after a critique', async () => {
  const { text } = await ask(
    'writer',
    WRITER_SYSTEM,
    writerPrompt(`${OFFLINE_TEXTS.label} Draft v2: essay`, `${OFFLINE_TEXTS.label} Review of Draft v2.\n- fix it\nscore: 75`),
  );
  expect(text.startsWith(`${OFFLINE_TEXTS.label} Draft v3:`)).toBe(true);
});

test('a writer/critic loop fed with its own replies ends on a score >= 85 after exactly three rounds', async () => {
  let lastDraft: string | undefined;
  let lastReview: string | undefined;
  const scores: number[] = [];
  for (let round = 1; round <= 6; round++) {
    lastDraft = (await ask('writer', WRITER_SYSTEM, writerPrompt(lastDraft, lastReview))).text;
    lastReview = (await ask('critic', CRITIC_SYSTEM, criticPrompt(lastDraft, lastReview))).text;
    scores.push(Number(SCORE_RE.exec(lastReview)?.[1]));
    if (scores[scores.length - 1] >= 85) break;
  }
  expect(scores).toEqual([...OFFLINE_SCORES]);
});

test('the same request always gets the same reply', async () => {
  const a = await ask('critic', CRITIC_SYSTEM, criticPrompt('Draft v2: x'));
  const b = await ask('critic', CRITIC_SYSTEM, criticPrompt('Draft v2: x'));
  expect(a.text).toBe(b.text);
  expect(a.requestId).not.toBe(b.requestId);
});

const VERDICT_FORMAT = {
  type: 'json_schema' as const,
  json_schema: {
    name: 'convergence_verdict',
    strict: true,
    schema: {
      type: 'object',
      properties: { converged: { type: 'boolean' }, reason: { type: 'string' } },
      required: ['converged', 'reason'],
      additionalProperties: false,
    },
  },
};

test.each([
  ['score: 75', false],
  ['score: 90', true],
])('a judge request about a result with %s gets a valid convergence_verdict (converged %s)', async (line, converged) => {
  const user = `<criteria>\nready to publish\n</criteria>\n\n<task>\n${TASK}\n</task>\n\n<result agent="critic">\nReview.\n${line}\n</result>`;
  const { text } = await ask('critic', 'You judge.', user, { response_format: VERDICT_FORMAT, temperature: 0 }, 'judge');
  const verdict = JSON.parse(text);
  expect(new Ajv().validate(VERDICT_FORMAT.json_schema.schema, verdict)).toBe(true);
  expect(verdict.converged).toBe(converged);
  expect(verdict.reason.startsWith(OFFLINE_TEXTS.label)).toBe(true);
});

test('a compaction request gets a short labelled summary', async () => {
  const { text } = await ask('writer', 'Summarize.', 'entry 1\nentry 2', {}, 'compaction');
  expect(text.startsWith(`${OFFLINE_TEXTS.label} Summary of earlier turns`)).toBe(true);
  expect(text.length).toBeLessThan(200);
});

test('any other agent gets a short labelled answer naming itself and the task, never tool calls', async () => {
  const { data, text } = await ask('researcher', 'You research.', `## Task\n${TASK}`, {
    tools: [{ type: 'function', function: { name: 'signal', parameters: { type: 'object', properties: {} } } }],
  });
  expect(text.startsWith(`${OFFLINE_TEXTS.label} researcher:`)).toBe(true);
  expect(text).toContain(TASK);
  expect(data.choices[0]?.message.tool_calls).toBeUndefined();
  expect(data.choices[0]?.finish_reason).toBe('stop');
});

test('an agent asked for json_schema output gets JSON valid against that schema', async () => {
  const schema = {
    type: 'object',
    properties: { score: { type: 'number', minimum: 0 }, notes: { type: 'array', items: { type: 'string' } } },
    required: ['score', 'notes'],
  };
  const { text } = await ask('critic', CRITIC_SYSTEM, criticPrompt('Draft v1'), {
    response_format: { type: 'json_schema', json_schema: { name: 'output', schema } },
  });
  expect(new Ajv().validate(schema, JSON.parse(text))).toBe(true);
});

test('an unknown route answers 404 in the OpenAI error shape', async () => {
  await expect(client.embeddings.create({ model: 'x', input: 'y' })).rejects.toBeInstanceOf(NotFoundError);
});

test('an agent name outside ASCII arrives percent-encoded and is answered under its own name', async () => {
  const { text } = await ask(encodeHeaderValue('研究者'), 'Research the topic.', writerPrompt());
  expect(text).toContain(`${OFFLINE_TEXTS.label} 研究者: here is my part`);
});

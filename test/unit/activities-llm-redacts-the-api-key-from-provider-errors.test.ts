/**
 * A provider that repeats the API key in its error text (src/activities/llm.ts `classifyLlmError`):
 * the failure's message and its details carry the provider's words with the key replaced, even
 * when the key straddles the point where a long message is cut.
 */
import { APIConnectionError, APIError } from 'openai';
import { classifyLlmError, LLM_DEFAULTS, redactApiKey } from '../../src/activities/llm';
import { ACTIVITY_TEXTS } from '../../src/activities/texts';
import type { LlmFailureDetails } from '../../src/core/llm/contract';

const KEY = 'sk-canary-0123456789abcdef0123456789abcdef';
const scope = { kind: 'agent' as const, agent: 'writer' };
const R = ACTIVITY_TEXTS.llm.redactedKey;

test('an HTTP error that echoes the key keeps its words, not the key, in message and details', () => {
  const err = APIError.generate(401, { error: { message: `Incorrect API key provided: ${KEY}.` } }, undefined, new Headers());
  const f = classifyLlmError(err, scope, 1000, Date.now(), KEY);
  expect(f.message).toBe(ACTIVITY_TEXTS.llm.http('agent', 'writer', 401, `Incorrect API key provided: ${R}.`));
  expect((f.details?.[0] as LlmFailureDetails).message).toBe(`Incorrect API key provided: ${R}.`);
  expect(f.stack).not.toContain(KEY);
});

test('a key at the cut of a long message leaves no fragment behind', () => {
  const padding = 'x'.repeat(LLM_DEFAULTS.maxErrorMessageChars - 10);
  const err = APIError.generate(500, { error: { message: `${padding}${KEY} and more` } }, undefined, new Headers());
  const f = classifyLlmError(err, scope, 1000, Date.now(), KEY);
  expect(f.message).not.toContain(KEY.slice(0, 10));
  expect(f.message).toContain(padding);
});

test('connection errors and the key-less placeholder', () => {
  const f = classifyLlmError(new APIConnectionError({ cause: new Error(`proxy refused ${KEY}`) }), scope, 1000, Date.now(), KEY);
  expect(f.message).not.toContain(KEY);
  expect(f.message).toContain(R);
  // the placeholder sent to key-less endpoints is no secret and stays readable
  expect(redactApiKey(`sent ${LLM_DEFAULTS.noApiKey}`, LLM_DEFAULTS.noApiKey)).toBe(`sent ${LLM_DEFAULTS.noApiKey}`);
  expect(redactApiKey('no key here', undefined)).toBe('no key here');
});

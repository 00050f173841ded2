/**
 * A provider that repeats the API key in its error text: the failure that leaves the activity
 * (src/activities/llm.ts `classifyLlmError`, then the one redaction step of src/activities/redact.ts)
 * carries the provider's words with the key replaced, in its message and its details, even when the
 * key straddles the point where a long message is cut.
 */
import type { ApplicationFailure } from '@temporalio/activity';
import { APIConnectionError, APIError } from 'openai';
import { classifyLlmError, LLM_DEFAULTS } from '../../../src/activities/llm';
import { redactFailure } from '../../../src/activities/redact';
import { REDACTED, Redactor } from '../../../src/secrets/redactor';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';
import type { LlmFailureDetails } from '../../../src/core/llm/contract';

const KEY = 'sk-canary-0123456789abcdef0123456789abcdef';
const scope = { kind: 'agent' as const, agent: 'writer' };
const leaving = (err: unknown) => redactFailure(new Redactor([KEY]), classifyLlmError(err, scope, 1000, Date.now())) as ApplicationFailure;

test('an HTTP error that echoes the key keeps its words, not the key, in message and details', () => {
  const err = APIError.generate(401, { error: { message: `Incorrect API key provided: ${KEY}.` } }, undefined, new Headers());
  const f = leaving(err);
  expect(f.message).toBe(ACTIVITY_TEXTS.llm.http('agent', 'writer', 401, `Incorrect API key provided: ${REDACTED}.`));
  expect((f.details?.[0] as LlmFailureDetails).message).toBe(`Incorrect API key provided: ${REDACTED}.`);
  expect(f.stack).not.toContain(KEY);
});

test('a key at the cut of a long message leaves no fragment behind', () => {
  const padding = 'x'.repeat(LLM_DEFAULTS.maxErrorMessageChars - 10);
  const err = APIError.generate(500, { error: { message: `${padding}${KEY} and more` } }, undefined, new Headers());
  const f = leaving(err);
  expect(f.message).not.toContain(KEY.slice(0, 10));
  expect(f.message).toContain(padding);
});

test('connection errors', () => {
  const f = leaving(new APIConnectionError({ cause: new Error(`proxy refused ${KEY}`) }));
  expect(f.message).not.toContain(KEY);
  expect(f.message).toContain(REDACTED);
});

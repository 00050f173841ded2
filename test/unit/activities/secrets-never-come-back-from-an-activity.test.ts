/**
 * One redaction step for every text that leaves an activity (activities/redact.ts): the worker's API
 * keys, the tools file's `${VAR}` values and `Authorization` values are taken out of results,
 * warnings, failure messages and details — whole, and where a text was cut in the middle of one.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { redactFailure, redactingActivities, redactingLogger } from '../../../src/activities/redact';
import { environmentSecrets, MIN_SECRET_CHARS, REDACTED, Redactor } from '../../../src/secrets/redactor';
import { parseToolsFile } from '../../../src/tools/file-load';

const KEY = 'sk-canary-0123456789abcdef0123456789abcdef';

describe('the redactor', () => {
  const r = new Redactor([KEY, 'short', undefined, 'tok-1234567890']);

  it('takes every whole secret out, and a Bearer token it was never told', () => {
    expect(r.text(`{"error":"bad key ${KEY}", "again": "${KEY}"}`)).toBe(`{"error":"bad key ${REDACTED}", "again": "${REDACTED}"}`);
    expect(r.text('Authorization: Bearer abcdefghijklmnop')).toBe(`Authorization: Bearer ${REDACTED}`);
    // a value shorter than the minimum is a word, not a secret
    expect(r.text('a short text')).toBe('a short text');
    expect(r.size).toBe(2);
  });

  it('takes out a secret cut at the end of a text or before a cut mark, and one cut at its start', () => {
    const cut = KEY.slice(0, 20);
    expect(r.text(`body: ${cut}`)).toBe(`body: ${REDACTED}`);
    expect(r.text(`body: ${cut}… (request id 7)`)).toBe(`body: ${REDACTED}… (request id 7)`);
    expect(r.text(`${KEY.slice(-12)} and more`)).toBe(`${REDACTED} and more`);
    // a start of the key in the middle of other text is not a cut
    expect(r.text(`${KEY.slice(0, 9)}zzz`)).toBe(`${KEY.slice(0, 9)}zzz`);
    expect(MIN_SECRET_CHARS).toBe(8);
  });

  it('returns the same value when nothing changed, a copy otherwise', () => {
    const clean = { text: 'hello', list: ['a', { b: 'c' }] };
    expect(r.value(clean)).toBe(clean);
    const dirty = { text: 'hello', list: ['a', { b: KEY }], n: 3 };
    expect(r.value(dirty)).toEqual({ text: 'hello', list: ['a', { b: REDACTED }], n: 3 });
    expect(dirty.list[1]).toEqual({ b: KEY });
  });

  it('redacts a failure and keeps its type, retryability and delay; a cancellation passes', () => {
    const failure = ApplicationFailure.create({ type: 'TroupeLlmError', message: `HTTP 401 ${KEY}`, nonRetryable: true, details: [{ message: KEY, status: 401 }], nextRetryDelay: 1500 });
    const out = redactFailure(r, failure) as ApplicationFailure;
    expect(out).toBeInstanceOf(ApplicationFailure);
    expect(out).toMatchObject({ type: 'TroupeLlmError', message: `HTTP 401 ${REDACTED}`, nonRetryable: true, details: [{ message: REDACTED, status: 401 }] });
    expect(out.nextRetryDelay).toBe(1500);
    expect(out.stack).not.toContain(KEY);
    const cancelled = new CancelledFailure('CANCELLED');
    expect(redactFailure(r, cancelled)).toBe(cancelled);
    expect((redactFailure(r, new TypeError(`boom ${KEY}`)) as Error).message).toBe(`boom ${REDACTED}`);
  });
});

describe('around the activities', () => {
  const r = new Redactor([KEY]);
  const activities = redactingActivities(
    {
      async echo(input: { text: string }) {
        return { text: input.text, resultHash: 'abc', warnings: [`w ${input.text}`] };
      },
      async fail(input: { text: string }) {
        throw ApplicationFailure.create({ message: input.text });
      },
    },
    r,
  );

  it('results lose the secret (and a hash of the text they no longer carry); failures too', async () => {
    await expect(activities.echo({ text: 'fine' })).resolves.toEqual({ text: 'fine', resultHash: 'abc', warnings: ['w fine'] });
    await expect(activities.echo({ text: KEY })).resolves.toEqual({ text: REDACTED, warnings: [`w ${REDACTED}`] });
    await expect(activities.fail({ text: `no ${KEY}` })).rejects.toMatchObject({ message: `no ${REDACTED}` });
    expect(activities.echo.name).toBe('echo');
  });

  it('so does every line the tools library logs', () => {
    const lines: string[] = [];
    const log = redactingLogger({ info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) }, r);
    log.info(`[mcp files] token=${KEY}`);
    expect(lines).toEqual([`[mcp files] token=${REDACTED}`]);
  });
});

describe('what the worker knows', () => {
  it('its key variables and the tools file values it expanded (args only when named like a secret), with Authorization headers', () => {
    expect(environmentSecrets({ OPENAI_API_KEY: 'a', OTHER_KEY: 'b', TROUPE_CODEC_TOKEN: 'c' }, ['OTHER_KEY'])).toEqual(expect.arrayContaining(['a', 'b', 'c']));
    const loaded = parseToolsFile(
      `
mcp_servers:
  web:
    url: http://127.0.0.1:1/mcp
    headers: { Authorization: "Bearer \${WEB_TOKEN}", X-Static: "literal-value-123" }
  files:
    command: node
    args: ["server.js", "\${ROOT}", "--token", "\${CLI_TOKEN}"]
    env: { API: "\${API_SECRET}" }
`,
      '/tmp/tools.yaml',
      { WEB_TOKEN: 'web-token-abcdef123', ROOT: '/srv/data', CLI_TOKEN: 'cli-token-55555555', API_SECRET: 'api-secret-0987654321' },
    );
    // a folder in args is no secret (redacting it would blank tool results); a token in args is
    expect(loaded.tools?.secrets).toEqual(['web-token-abcdef123', 'Bearer web-token-abcdef123', 'cli-token-55555555', 'api-secret-0987654321']);
  });
});

/**
 * Two endpoints a worker allows are not one party: a redirect from one to the other is followed,
 * but without credentials, as the Fetch standard drops them on a cross-origin redirect
 * (src/activities/redirects.ts): `Authorization`, `Proxy-Authorization`, `Cookie` and any header that
 * carries the client's key under another name (`api-key`) stay behind, for that hop and every hop
 * after it, back to the first origin included; other headers and the body go on. A redirect within
 * one origin keeps the key. Two real HTTP servers (test/helpers/mini-llm.ts): another port is
 * another origin.
 */
import { createActivities } from '../../../src/activities';
import { allowedPrefixFetch } from '../../../src/activities/redirects';
import type { AgentCallInput } from '../../../src/core/llm/contract';
import { activityEnv, runIn, testModel, testOffer } from '../../helpers/activity-env';
import { completion, startMiniLlm, type MiniLlm, type Reply } from '../../helpers/mini-llm';

const KEY = 'sk-cross-origin-canary-7d1f';
const input: AgentCallInput = {
  workflowId: 'wf-cross-origin',
  agent: 'writer',
  model: testModel,
  messages: [{ role: 'user', content: 'hi' }],
  offer: testOffer(),
  timeoutMs: 30_000,
};
const redirect = (location: string, status = 307): Reply => ({ status, headers: { location }, raw: '' });

const servers: MiniLlm[] = [];
async function server(script: (req: { path: string }, index: number) => Reply): Promise<MiniLlm> {
  const s = await startMiniLlm(script);
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Every header a server received that holds the key, by name. */
const keyHeaders = (s: MiniLlm) => s.requests.map((r) => Object.keys(r.headers).filter((name) => String(r.headers[name]).includes(KEY)));

test('a model call redirected to another allowed host is followed without the key; the body and troupe headers go on', async () => {
  const other = await server(() => ({ json: completion({ content: 'answered by the other host' }) }));
  const first = await server(() => redirect(`${other.url}/chat/completions`));
  const acts = createActivities({ baseUrl: first.url, env: { OPENAI_API_KEY: KEY, TROUPE_ALLOWED_BASE_URLS: `${first.url},${other.url}` } });
  const result = await runIn(activityEnv(), acts.callAgent, input);
  expect(result.text).toBe('answered by the other host');
  expect(first.requests.map((r) => r.headers['authorization'])).toEqual([`Bearer ${KEY}`]);
  expect(other.requests).toHaveLength(1);
  expect(other.requests[0].headers['authorization']).toBeUndefined();
  expect(keyHeaders(other)).toEqual([[]]);
  expect(other.requests[0].body).toEqual(first.requests[0].body);
  expect(other.requests[0].headers['x-troupe-agent']).toBe('writer');
});

test('credentials under any name stay behind for every later hop, back to the first origin too; other headers go on', async () => {
  const other = await server((req) => (req.path === '/v1/a' ? redirect('/v1/b', 308) : redirect(`${firstUrl}/back`)));
  const first = await server((req) => (req.path === '/v1/start' ? redirect(`${other.url}/a`) : { json: {} }));
  const firstUrl = first.url;
  const guarded = allowedPrefixFetch([first.url, other.url], { secrets: [KEY] });
  const response = await guarded(`${first.url}/start`, {
    method: 'POST',
    body: JSON.stringify({ n: 1 }),
    headers: {
      authorization: `Bearer ${KEY}`,
      'api-key': KEY,
      'x-goog-api-key': `prefix-${KEY}`,
      'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
      cookie: 'session=abc',
      'content-type': 'application/json',
      'x-trace': 'kept',
    },
  });
  expect(response.status).toBe(200);
  // the first origin's own request carries everything
  expect(first.requests[0].headers).toMatchObject({ authorization: `Bearer ${KEY}`, 'api-key': KEY, cookie: 'session=abc' });
  const later = [...other.requests, first.requests[1]];
  expect(later.map((r) => r.path)).toEqual(['/v1/a', '/v1/b', '/v1/back']);
  for (const r of later) {
    expect(Object.keys(r.headers).filter((h) => ['authorization', 'api-key', 'x-goog-api-key', 'proxy-authorization', 'cookie'].includes(h))).toEqual([]);
    expect(r.headers['x-trace']).toBe('kept');
    expect(r.body).toEqual({ n: 1 });
  }
  expect([...keyHeaders(other), keyHeaders(first)[1]]).toEqual([[], [], []]);
});

test('a redirect within one origin keeps the key', async () => {
  const a = await server((req) => (req.path === '/v1/chat/completions' ? redirect('/v1/moved/chat/completions') : { json: completion({}) }));
  const acts = createActivities({ baseUrl: a.url, env: { OPENAI_API_KEY: KEY } });
  await runIn(activityEnv(), acts.callAgent, input);
  expect(a.requests.map((r) => r.headers['authorization'])).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
});

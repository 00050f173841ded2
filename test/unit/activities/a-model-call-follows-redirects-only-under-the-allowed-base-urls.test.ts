/**
 * A model call sends the worker's API key only to URLs under an allowed base URL, hop by hop
 * (src/activities/redirects.ts): a redirect under the allowed prefix is followed with the key; one to
 * another path of the same host, or to another host, ends the call at once, fatal, naming the target
 * and the allowed prefixes, and the target receives nothing; one to another allowed host is followed
 * without the key; a loop stops after MAX_REDIRECTS hops.
 * Real HTTP servers (test/helpers/mini-llm.ts), the real activity in a mock activity environment.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { createActivities } from '../../../src/activities';
import { ENDPOINT_TEXTS } from '../../../src/activities/endpoints';
import { MAX_REDIRECTS, RedirectRefusedError, allowedPrefixFetch } from '../../../src/activities/redirects';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';
import type { AgentCallInput } from '../../../src/core/llm/contract';
import { FAILURE_TYPES } from '../../../src/core/llm/contract';
import { activityEnv, runIn, testModel, testOffer } from '../../helpers/activity-env';
import { completion, startMiniLlm, type MiniLlm, type Reply } from '../../helpers/mini-llm';

const KEY = 'sk-redirect-canary-0b5e';
const input = (over: Partial<AgentCallInput> = {}): AgentCallInput => ({
  workflowId: 'wf-redirects',
  agent: 'writer',
  model: testModel,
  messages: [{ role: 'user', content: 'hi' }],
  offer: testOffer(),
  timeoutMs: 30_000,
  ...over,
});
const redirect = (location: string, status = 307): Reply => ({ status, headers: { location }, raw: '' });

async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

/** The fatal failure a refused redirect to `target` ends the agent call with. */
function refused(target: string, allowed: string[]) {
  const refusal = ENDPOINT_TEXTS.redirectRefused(target, allowed);
  return {
    type: FAILURE_TYPES.fatal,
    nonRetryable: true,
    message: ACTIVITY_TEXTS.llm.endpointRefused('agent', 'writer', refusal),
    details: [{ kind: 'agent', message: refusal }],
  };
}

describe('a model endpoint that redirects', () => {
  const servers: MiniLlm[] = [];
  async function server(script: (req: { path: string }, index: number) => Reply): Promise<MiniLlm> {
    const s = await startMiniLlm(script);
    servers.push(s);
    return s;
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  test('under the allowed prefix: followed with the key, and a 307 keeps the method and the body', async () => {
    const a = await server((req) =>
      req.path === '/v1/chat/completions' ? redirect('/v1/moved/chat/completions') : { json: completion({ content: 'moved answer' }) },
    );
    const acts = createActivities({ baseUrl: a.url, env: { OPENAI_API_KEY: KEY } });
    const result = await runIn(activityEnv(), acts.callAgent, input());
    expect(result.text).toBe('moved answer');
    expect(a.requests.map((r) => [r.method, r.path, r.headers['authorization']])).toEqual([
      ['POST', '/v1/chat/completions', `Bearer ${KEY}`],
      ['POST', '/v1/moved/chat/completions', `Bearer ${KEY}`],
    ]);
    expect(a.requests[1]!.body).toEqual(a.requests[0]!.body);
    expect(a.requests[1]!.headers['x-troupe-agent']).toBe('writer');
  });

  test('a 303 turns the POST into a GET without a body, still under the prefix and with the key', async () => {
    const a = await server((req) => (req.path === '/v1/chat/completions' ? redirect('/v1/result', 303) : { json: completion({}) }));
    const acts = createActivities({ baseUrl: a.url, env: { OPENAI_API_KEY: KEY } });
    await runIn(activityEnv(), acts.callAgent, input());
    const second = a.requests[1]!;
    expect([second.method, second.path, second.body, second.headers['content-type']]).toEqual(['GET', '/v1/result', undefined, undefined]);
    expect(second.headers['authorization']).toBe(`Bearer ${KEY}`);
  });

  test.each([
    ['an absolute path', '/other/chat/completions', 307],
    ['a path that climbs out of the prefix', '/v1/../other/chat/completions', 308],
    ['a sibling that only starts with the prefix', '/v10/chat/completions', 307],
    ['a path that names a timeout', '/timeout', 302],
  ])('to another path of the same host (%s): refused at once, fatal, and that path never hears from the worker', async (_, location, status) => {
    const a = await server((req) => (req.path === '/v1/chat/completions' ? redirect(location, status) : { json: completion({}) }));
    const acts = createActivities({ baseUrl: a.url, env: { OPENAI_API_KEY: KEY } });
    const failure = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    const target = new URL(location, `${a.url}/chat/completions`).href;
    expect(failure).toMatchObject(refused(target, [a.url]));
    expect(failure.message).toContain(`redirected to ${target}`);
    expect(failure.message).toContain('was not sent there');
    expect(failure.message).toContain('TROUPE_ALLOWED_BASE_URLS');
    expect(a.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });

  test('to another host outside the list: refused, and the other host receives no request at all', async () => {
    const elsewhere = await server(() => ({ json: completion({}) }));
    const a = await server(() => redirect(`${elsewhere.url}/chat/completions?key=leak`));
    const acts = createActivities({ baseUrl: a.url, env: { OPENAI_API_KEY: KEY } });
    const failure = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    // the target is shown without its query
    expect(failure).toMatchObject(refused(`${elsewhere.url}/chat/completions`, [a.url]));
    expect(a.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });

  test('to another host the worker lists in TROUPE_ALLOWED_BASE_URLS: followed, without the key (another origin)', async () => {
    const listed = await server(() => ({ json: completion({ content: 'from the listed host' }) }));
    const a = await server(() => redirect(`${listed.url}/chat/completions`));
    const acts = createActivities({ baseUrl: a.url, env: { OPENAI_API_KEY: KEY, TROUPE_ALLOWED_BASE_URLS: listed.url } });
    const result = await runIn(activityEnv(), acts.callAgent, input());
    expect(result.text).toBe('from the listed host');
    expect(listed.requests.map((r) => r.headers['authorization'])).toEqual([undefined]);
  });

  test("a worker that trusts its roles (troupe dev) follows only under the model's own base URL", async () => {
    const worker = await server(() => ({ json: completion({}) }));
    const a = await server(() => redirect(`${worker.url}/chat/completions`));
    const acts = createActivities({ baseUrl: worker.url, env: { ROLE_KEY: KEY }, trustRoleEndpoints: true });
    const model = { ...testModel, baseUrl: a.url, apiKeyEnv: 'ROLE_KEY' };
    const failure = await failureOf(runIn(activityEnv(), acts.callAgent, input({ model })));
    expect(failure).toMatchObject(refused(`${worker.url}/chat/completions`, [a.url]));
    expect(worker.requests).toHaveLength(0);
  });

  test(`a redirect loop under the prefix stops after ${MAX_REDIRECTS} hops, fatal`, async () => {
    const a = await server(() => redirect('/v1/loop'));
    const acts = createActivities({ baseUrl: a.url, env: { OPENAI_API_KEY: KEY } });
    const failure = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    const refusal = ENDPOINT_TEXTS.tooManyRedirects(MAX_REDIRECTS, `${a.url}/loop`);
    expect(failure).toMatchObject({ type: FAILURE_TYPES.fatal, nonRetryable: true, message: ACTIVITY_TEXTS.llm.endpointRefused('agent', 'writer', refusal) });
    expect(a.requests).toHaveLength(MAX_REDIRECTS + 1);
  });

  test('the request timeout covers every hop: a hop that hangs ends in the retryable timeout', async () => {
    const a = await server((req) => (req.path === '/v1/chat/completions' ? redirect('/v1/slow') : { hang: true }));
    const acts = createActivities({ baseUrl: a.url, env: {} });
    const failure = await failureOf(runIn(activityEnv(1_400), acts.callAgent, input()));
    expect(failure).toMatchObject({ type: FAILURE_TYPES.retryable, nonRetryable: false });
    expect(failure.message).toMatch(/^agent writer: no reply within 1400 ms \(the request gets the call's timeout minus 1 s: (3\d\d|400) ms\); a slow model needs more: raise agents\.writer\.timeout_ms/);
    await a.waitForAbort(1);
  });

  test('cancelling the activity aborts the hop in flight', async () => {
    const a = await server((req) => (req.path === '/v1/chat/completions' ? redirect('/v1/slow') : { hang: true }));
    const acts = createActivities({ baseUrl: a.url, env: {} });
    const env = activityEnv();
    const running = env.run(acts.callAgent, input());
    await a.waitForRequest(1);
    env.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
    await a.waitForAbort(1);
  });
});

test('allowedPrefixFetch on its own: a Request input is followed with its body, and a refusal carries its reason', async () => {
  const seen: string[] = [];
  const a = await startMiniLlm((req) => {
    seen.push(`${req.path} ${JSON.stringify(req.body)}`);
    return req.path === '/v1/a' ? redirect('/v1/b', 308) : req.path === '/v1/b' ? redirect('/outside') : { json: {} };
  });
  try {
    const guarded = allowedPrefixFetch([a.url]);
    const request = new Request(`${a.url}/a`, { method: 'POST', body: JSON.stringify({ n: 1 }), headers: { 'content-type': 'application/json' } });
    const err = await guarded(request).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RedirectRefusedError);
    expect((err as RedirectRefusedError).message).toBe(ENDPOINT_TEXTS.redirectStopped);
    expect((err as RedirectRefusedError).refusal).toBe(ENDPOINT_TEXTS.redirectRefused(new URL('/outside', a.url).href, [a.url]));
    expect(seen).toEqual(['/v1/a {"n":1}', '/v1/b {"n":1}']);
  } finally {
    await a.close();
  }
});

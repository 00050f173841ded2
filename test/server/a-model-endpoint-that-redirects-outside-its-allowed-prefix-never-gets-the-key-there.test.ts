/**
 * The worker's API key goes only to URLs under an allowed base URL, hop by hop: an allowed endpoint
 * (`http://host/v1`) that answers 307 to another path of the same host ends the run
 * `failed/fatal_error` after one request, naming the target and the allowed prefix, and that path
 * never receives a request; a redirect under the prefix is followed and the run completes.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENDPOINT_TEXTS } from '../../src/activities/endpoints';
import { completion } from '../helpers/mini-llm';
import { startHarness, type Harness } from '../helpers/runs';

const CANARY = 'sk-canary-3d1f-stays-under-v1';
const ROLE = `
name: redirected
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`;

/** An endpoint at /v1 whose chat completions answer 307 to `location`; it records every request. */
async function startRedirector(): Promise<{
  url: string;
  origin: string;
  location: string;
  seen: Array<{ path: string; authorization?: string }>;
  close(): Promise<void>;
}> {
  const state = { location: '/v1/moved/chat/completions', seen: [] as Array<{ path: string; authorization?: string }> };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.seen.push({ path: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
      if (req.url === '/v1/chat/completions') {
        res.writeHead(307, { location: state.location }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion({ content: `answered at ${req.url}` })));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url: `${origin}/v1`,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

describe('a model endpoint that redirects', () => {
  let redirector: Awaited<ReturnType<typeof startRedirector>>;
  let h: Harness;

  beforeAll(async () => {
    redirector = await startRedirector();
    // the worker's own endpoint and key: the redirector at /v1 is the one allowed prefix
    h = await startHarness({ llm: { baseUrl: redirector.url, apiKey: CANARY, env: {} } });
  });
  afterAll(async () => {
    await h?.close();
    await redirector?.close();
  });
  beforeEach(() => {
    redirector.seen.length = 0;
  });

  test('to another path of the same host: failed/fatal_error naming the target, and that path never saw the key', async () => {
    redirector.location = '/other/chat/completions';
    const result = await h.run(ROLE);

    const refusal = ENDPOINT_TEXTS.redirectRefused(`${redirector.origin}/other/chat/completions`, [redirector.url]);
    expect(result).toMatchObject({ status: 'failed', reason: 'fatal_error' });
    expect(result.diagnostics).toMatchObject({ kind: 'agent', message: refusal });
    expect(result.reasonText).toContain(refusal);
    // one attempt (fatal, not retried), and nothing at /other
    expect(redirector.seen).toEqual([{ path: '/v1/chat/completions', authorization: `Bearer ${CANARY}` }]);
  });

  test('under the prefix: followed with the key, and the run completes', async () => {
    redirector.location = '/v1/moved/chat/completions';
    const result = await h.run(ROLE);

    expect(result).toMatchObject({ status: 'completed', finalText: 'answered at /v1/moved/chat/completions' });
    expect(redirector.seen).toEqual([
      { path: '/v1/chat/completions', authorization: `Bearer ${CANARY}` },
      { path: '/v1/moved/chat/completions', authorization: `Bearer ${CANARY}` },
    ]);
  });
});

/**
 * The codec server (src/codec/server.ts) over real HTTP: it encodes and decodes the UI's JSON
 * payloads, requires the bearer token when it has one, answers CORS only for its origins, and
 * logs neither payloads nor tokens. `troupe codec-server` refuses to start without a usable key.
 */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { AesGcmCodec, CODEC_ENV, CODEC_SERVER_DEFAULTS, CODEC_TEXTS, payloadKeysFromEnv, startCodecServer, type CodecServer } from '../../../src/codec';
import { main } from '../../../src/cli/main';

const UI = 'http://localhost:8233';
const TOKEN = `tok-${randomBytes(8).toString('hex')}`;
const keys = payloadKeysFromEnv({ [CODEC_ENV.key]: randomBytes(32).toString('base64') })!;
const codec = new AesGcmCodec(keys);
const logLines: string[] = [];
let server: CodecServer;

beforeAll(async () => {
  server = await startCodecServer({ codec, port: 0, origins: [UI], token: TOKEN, log: (l) => logLines.push(l) });
});
afterAll(() => server.close());

const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});
const fromJson = (p: { metadata: Record<string, string>; data: string }): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data, 'base64'),
});

async function post(path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

test('decode returns the plaintext payloads, and encode produces what decode reverses', async () => {
  const encrypted = await codec.encode([defaultPayloadConverter.toPayload({ task: 'SECRET-TASK' })!]);
  const decoded = await post('/decode', { payloads: encrypted.map(toJson) });
  expect(decoded.status).toBe(200);
  expect(defaultPayloadConverter.fromPayload(fromJson(decoded.json.payloads[0]))).toEqual({ task: 'SECRET-TASK' });

  const encoded = await post('/encode', { payloads: [toJson(defaultPayloadConverter.toPayload('typed in the UI')!)] });
  expect(encoded.status).toBe(200);
  expect(Buffer.from(encoded.json.payloads[0].metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
  const back = await post('/decode', encoded.json);
  expect(defaultPayloadConverter.fromPayload(fromJson(back.json.payloads[0]))).toBe('typed in the UI');
  // the UI may configure an endpoint with a path prefix
  expect((await post('/codec/decode', encoded.json)).status).toBe(200);
});

test('a missing or wrong bearer token is refused with 401 and nothing decoded', async () => {
  const encrypted = await codec.encode([defaultPayloadConverter.toPayload('SECRET')!]);
  for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: TOKEN }] as Array<Record<string, string>>) {
    const res = await post('/decode', { payloads: encrypted.map(toJson) }, headers);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.json).toEqual({ error: CODEC_TEXTS.unauthorized });
  }
});

test("a CORS preflight from the UI's origin is answered with the headers the UI sends; another origin gets none", async () => {
  const preflight = (origin: string) =>
    fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace,authorization' },
    });
  const ok = await preflight(UI);
  expect(ok.status).toBe(204);
  expect(ok.headers.get('access-control-allow-origin')).toBe(UI);
  expect(ok.headers.get('access-control-allow-methods')).toBe(CODEC_SERVER_DEFAULTS.allowMethods);
  expect(ok.headers.get('access-control-allow-headers')).toBe(CODEC_SERVER_DEFAULTS.allowHeaders);
  const evil = await preflight('http://evil.example');
  expect(evil.status).toBe(403);
  expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  // the real request from the UI's origin carries the allow-origin header too
  const res = await post('/decode', { payloads: [] }, { authorization: `Bearer ${TOKEN}`, origin: UI });
  expect(res.status).toBe(200);
  expect(res.headers.get('access-control-allow-origin')).toBe(UI);
});

test('malformed bodies, unknown keys, other paths and methods get clear errors', async () => {
  expect((await post('/decode', 'not json')).status).toBe(400);
  const bad = await post('/decode', { payloads: [{ data: '***' }] });
  expect(bad.status).toBe(400);
  expect(bad.json.error).toContain('payloads.0.data');
  const other = new AesGcmCodec(payloadKeysFromEnv({ [CODEC_ENV.key]: randomBytes(32).toString('base64') })!);
  const foreign = await other.encode([defaultPayloadConverter.toPayload('x')!]);
  const unknown = await post('/decode', { payloads: foreign.map(toJson) });
  expect(unknown.status).toBe(422);
  expect(unknown.json.error).toBe(CODEC_TEXTS.unknownKeyId(other.keyIds[0], codec.keyIds));
  expect((await post('/elsewhere', { payloads: [] })).status).toBe(404);
  expect((await fetch(`${server.url}/decode`)).status).toBe(405);
});

test('the request log names method, path, status and count, never a payload or the token', async () => {
  await post('/encode', { payloads: [toJson(defaultPayloadConverter.toPayload('LOGGED-SECRET')!)] });
  expect(logLines).toContain(CODEC_TEXTS.request('POST', '/encode', 200, 1));
  const all = logLines.join('\n');
  expect(all).not.toContain('LOGGED-SECRET');
  expect(all).not.toContain(TOKEN);
});

describe('troupe codec-server', () => {
  const saved = { ...process.env };
  let stderr = '';
  let spy: jest.SpyInstance;
  beforeEach(() => {
    stderr = '';
    spy = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  });
  afterEach(() => {
    spy.mockRestore();
    process.env = { ...saved };
  });

  test('exits 1 without a key, with a malformed key (never printing it), a bad port or a bad origin', async () => {
    delete process.env[CODEC_ENV.key];
    expect(await main(['codec-server', '--port', '0'])).toBe(1);
    expect(stderr).toBe(`${CODEC_TEXTS.serverNeedsKey}\n`);

    stderr = '';
    process.env[CODEC_ENV.key] = 'c2hvcnQ=';
    expect(await main(['codec-server', '--port', '0'])).toBe(1);
    expect(stderr).toContain(CODEC_TEXTS.badKey(CODEC_ENV.key, CODEC_TEXTS.wrongLength(5)));
    expect(stderr).not.toContain('c2hvcnQ=');

    stderr = '';
    expect(await main(['codec-server', '--port', 'eighty'])).toBe(1);
    expect(stderr).toBe(`${CODEC_TEXTS.badPort('eighty')}\n`);

    stderr = '';
    expect(await main(['codec-server', '--origin', 'localhost'])).toBe(1);
    expect(stderr).toBe(`${CODEC_TEXTS.badOrigin('localhost')}\n`);
  });
});

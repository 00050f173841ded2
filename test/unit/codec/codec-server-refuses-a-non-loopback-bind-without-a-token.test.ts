/**
 * The codec server decrypts for whoever reaches it, so it listens beyond loopback only with a bearer
 * token (docs/encryption.md, "Reading encrypted runs in the Web UI"): `startCodecServer` refuses `0.0.0.0`, `::`,
 * a LAN address or any host name without a token before it opens a port, and `troupe codec-server`
 * exits 1 with the same message. With a token it starts on 0.0.0.0 and requires it; on 127.0.0.1 it
 * starts without one.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as net from 'node:net';
import * as path from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { AesGcmCodec, CODEC_ENV, CODEC_TEXTS, payloadKeysFromEnv, startCodecServer, type CodecServer } from '../../../src/codec';
import { isLoopbackHost } from '../../../src/codec/server';
import { main } from '../../../src/cli/main';
import { startTroupeProcess } from '../../helpers/troupe-process';

const KEY = randomBytes(32).toString('base64');
const TOKEN = `tok-${randomBytes(8).toString('hex')}`;
const codec = new AesGcmCodec(payloadKeysFromEnv({ [CODEC_ENV.key]: KEY })!);
const UI = 'http://localhost:8080';
const LISTENING = /troupe codec server at (http:\/\/[^\s]+) /;
const BIN = path.resolve(__dirname, '..', '..', '..', 'bin', 'troupe.js');

/** A port nothing listens on now (the OS handed it out and it was closed again). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function encryptedBody(): Promise<string> {
  const payloads = await codec.encode([defaultPayloadConverter.toPayload('SECRET')!]);
  const json = (p: Payload) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  });
  return JSON.stringify({ payloads: payloads.map(json) });
}

/** POST /decode to 127.0.0.1:`port`, with `authorization` when given; resolves to the status. */
async function decodeStatus(port: number, authorization?: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: await encryptedBody(),
  });
  await res.arrayBuffer();
  return res.status;
}

test('only the literal loopback forms are loopback; a name is never resolved', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', '127.255.255.254', 'localhost', 'LocalHost', '::1', '0:0:0:0:0:0:0:1']) {
    expect([host, isLoopbackHost(host)]).toEqual([host, true]);
  }
  for (const host of ['0.0.0.0', '::', '', '192.168.1.10', '10.0.0.1', '128.0.0.1', '127.0.0.1.nip.io', 'codec.example', '0177.0.0.1', '[::1]', '::2', 'localhost.']) {
    expect([host, isLoopbackHost(host)]).toEqual([host, false]);
  }
});

describe('startCodecServer', () => {
  const started: CodecServer[] = [];
  afterAll(() => Promise.all(started.map((s) => s.close())));

  test('0.0.0.0, ::, a LAN address or a host name without a token: refused, naming the host and the fix, and no port opened', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'codec.example']) {
      const port = await freePort();
      await expect(startCodecServer({ codec, host, port, origins: [UI] })).rejects.toThrow(CODEC_TEXTS.openBindWithoutToken(host));
      // an empty token is no token
      await expect(startCodecServer({ codec, host, port, origins: [UI], token: '' })).rejects.toThrow(CODEC_TEXTS.openBindWithoutToken(host));
      expect(await listening(port)).toBe(false);
    }
    const message = CODEC_TEXTS.openBindWithoutToken('0.0.0.0');
    expect(message).toContain('"0.0.0.0"');
    expect(message).toContain(CODEC_ENV.token);
    expect(message).toContain('--token');
    expect(message).toContain('--host 127.0.0.1');
  });

  test('0.0.0.0 with a token: starts, and decodes only for a caller that sends the token', async () => {
    const server = await startCodecServer({ codec, host: '0.0.0.0', port: 0, origins: [UI], token: TOKEN });
    started.push(server);
    expect(await decodeStatus(server.port)).toBe(401);
    expect(await decodeStatus(server.port, 'Bearer wrong')).toBe(401);
    expect(await decodeStatus(server.port, `Bearer ${TOKEN}`)).toBe(200);
  });

  test('127.0.0.1 (and the default host) without a token: starts and decodes', async () => {
    for (const host of ['127.0.0.1', undefined]) {
      const server = await startCodecServer({ codec, port: 0, origins: [UI], ...(host ? { host } : {}) });
      started.push(server);
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect(await decodeStatus(server.port)).toBe(200);
    }
  });
});

describe('troupe codec-server', () => {
  const saved = { ...process.env };
  let stderr = '';
  let spy: jest.SpyInstance;
  beforeEach(() => {
    stderr = '';
    spy = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
    process.env[CODEC_ENV.key] = KEY;
    delete process.env[CODEC_ENV.token];
  });
  afterEach(() => {
    spy.mockRestore();
    process.env = { ...saved };
  });

  test('--host 0.0.0.0 without a token (or with an empty TROUPE_CODEC_TOKEN): exits 1 with the message, no port opened', async () => {
    const port = await freePort();
    expect(await main(['codec-server', '--host', '0.0.0.0', '--port', String(port)])).toBe(1);
    expect(stderr).toBe(`${CODEC_TEXTS.openBindWithoutToken('0.0.0.0')}\n`);

    stderr = '';
    process.env[CODEC_ENV.token] = '';
    expect(await main(['codec-server', '--host', '::', '--port', String(port)])).toBe(1);
    expect(stderr).toBe(`${CODEC_TEXTS.openBindWithoutToken('::')}\n`);
    expect(await listening(port)).toBe(false);
  });

  test('the real process: exit code 1 and the message on stderr', async () => {
    const port = await freePort();
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', [CODEC_ENV.key]: KEY };
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [BIN, 'codec-server', '--host', '0.0.0.0', '--port', String(port)], { env, timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });
    expect(result).toEqual({ code: 1, stdout: '', stderr: `${CODEC_TEXTS.openBindWithoutToken('0.0.0.0')}\n` });
    expect(await listening(port)).toBe(false);
  });

  test('--host 0.0.0.0 with TROUPE_CODEC_TOKEN: serves, and requires the token', async () => {
    const codecServer = await startTroupeProcess(
      ['codec-server', '--host', '0.0.0.0', '--port', '0'],
      { [CODEC_ENV.key]: KEY, [CODEC_ENV.token]: TOKEN },
      LISTENING,
    );
    try {
      expect(codecServer.output()).toContain('a bearer token is required');
      const port = Number(new URL(codecServer.match[1]).port);
      expect(await decodeStatus(port)).toBe(401);
      expect(await decodeStatus(port, `Bearer ${TOKEN}`)).toBe(200);
    } finally {
      expect(await codecServer.stop()).toBe(0);
    }
  });
});

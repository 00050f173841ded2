/**
 * `troupe worker` reads its payload key and shutdown grace before it connects: a malformed value
 * stops it with exit code 1 and a message naming the variable (never a key's value), not with a
 * misleading "cannot reach Temporal".
 */
import { CODEC_ENV, CODEC_TEXTS } from '../../../src/codec';
import { main } from '../../../src/cli/main';
import { shutdownGraceFromEnv, WORKER_SHUTDOWN, WORKER_TEXTS } from '../../../src/worker';

const saved = { ...process.env };
let stderr = '';
let spy: jest.SpyInstance;
beforeEach(() => {
  stderr = '';
  spy = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  // nothing listens here: reaching the connection step would print "cannot reach Temporal" instead
  process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
});
afterEach(() => {
  spy.mockRestore();
  process.env = { ...saved };
});

test('a payload key that is not 32 bytes of base64', async () => {
  process.env[CODEC_ENV.key] = 'dG9vLXNob3J0LXNlY3JldA==';
  expect(await main(['worker'])).toBe(1);
  expect(stderr).toBe(`${CODEC_TEXTS.badKey(CODEC_ENV.key, CODEC_TEXTS.wrongLength(16))}\n`);
  expect(stderr).not.toContain('dG9vLXNob3J0LXNlY3JldA==');
});

test('a shutdown grace that is not a whole number of milliseconds', async () => {
  delete process.env[CODEC_ENV.key];
  process.env[WORKER_SHUTDOWN.graceEnv] = '30s';
  expect(await main(['worker'])).toBe(1);
  expect(stderr).toBe(`${WORKER_TEXTS.badGrace('30s')}\n`);
});

test('the grace defaults to 30 s and takes whole milliseconds', () => {
  expect(shutdownGraceFromEnv({})).toBe(30_000);
  expect(shutdownGraceFromEnv({ [WORKER_SHUTDOWN.graceEnv]: ' 0 ' })).toBe(0);
  expect(shutdownGraceFromEnv({ [WORKER_SHUTDOWN.graceEnv]: '1500' })).toBe(1500);
  expect(() => shutdownGraceFromEnv({ [WORKER_SHUTDOWN.graceEnv]: '-1' })).toThrow(WORKER_TEXTS.badGrace('-1'));
});

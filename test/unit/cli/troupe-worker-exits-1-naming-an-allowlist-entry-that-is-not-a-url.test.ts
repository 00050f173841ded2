/** `troupe worker` checks the endpoint allowlists in its environment before it connects to Temporal. */
import { ENDPOINT_TEXTS } from '../../../src/activities/endpoints';
import { main } from '../../../src/cli/main';

test('a listed base URL that is not a URL stops the worker with exit code 1 and names the entry', async () => {
  let stderr = '';
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  const saved = { list: process.env.TROUPE_ALLOWED_BASE_URLS, address: process.env.TEMPORAL_ADDRESS };
  process.env.TROUPE_ALLOWED_BASE_URLS = 'https://api.openai.com/v1, ollama:11434';
  // nothing listens here: reaching the connection step would print "cannot reach Temporal" instead
  process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
  try {
    expect(await main(['worker'])).toBe(1);
    expect(stderr).toBe(`${ENDPOINT_TEXTS.invalidListEntry('ollama:11434')}\n`);
  } finally {
    e.mockRestore();
    for (const [key, value] of [['TROUPE_ALLOWED_BASE_URLS', saved.list], ['TEMPORAL_ADDRESS', saved.address]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
});

/**
 * `troupe dev` connects its worker and client to the dev server it starts, with no configuration,
 * even in a shell set up for another Temporal (an API key, TLS, a profile that does not exist here):
 * those settings are for `troupe worker` and `troupe run`, not for the local demo.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..', '..');

test('npm run demo completes offline in a shell configured for Temporal Cloud', async () => {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-home-')),
    TEMPORAL_CLI: process.env.TEMPORAL_TEST_CLI ?? process.env.TEMPORAL_CLI ?? '',
    TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
    TEMPORAL_NAMESPACE: 'ns.acct',
    TEMPORAL_API_KEY: 'a-cloud-key',
    TEMPORAL_TLS: 'true',
    TEMPORAL_PROFILE: 'cloud',
  };
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/troupe.js', 'dev', '--exit'], { cwd: ROOT, env, timeout: 120_000 });
  expect(stdout).toContain('OFFLINE MODEL');
  expect(stdout).toMatch(/\ncompleted: /);
}, 150_000);

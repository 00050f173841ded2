/**
 * Jest globalSetup of the "server" project: starts ONE real Temporal dev server (default dynamic
 * config, no UI) for the whole run and publishes its address as TEMPORAL_TEST_ADDRESS, which the
 * test files inherit. Tests that need a special server config start their own with
 * `startDedicatedServer` from ./temporal. While the server starts it bundles the workflows once for
 * every test file (see `getWorkflowBundle`), into a file named by TROUPE_TEST_WORKFLOW_BUNDLE.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAST_LOCAL_DYNAMIC_CONFIG, startDevServer } from '../../src/dev/temporal-server';
import { bundleWorkflows, SHARED_BUNDLE_VARIABLE } from './temporal';

/** Bundles the default workflows module into a temporary file and names it for the test files. */
async function shareWorkflowBundle(): Promise<void> {
  const { code } = await bundleWorkflows();
  const file = join(await mkdtemp(join(tmpdir(), 'troupe-test-bundle-')), 'workflows.js');
  await writeFile(file, code);
  process.env[SHARED_BUNDLE_VARIABLE] = file;
}

/** Key under which the server handle is passed to global-teardown (same process). */
export const GLOBAL_SERVER_KEY = '__TROUPE_TEST_TEMPORAL_SERVER__';

/** Starts the shared dev server unless TEMPORAL_TEST_ADDRESS already points at one. */
export default async function globalSetup(): Promise<void> {
  const bundled = shareWorkflowBundle();
  bundled.catch(() => undefined); // awaited below, once the server is up (or known not to be needed)
  if (process.env.TEMPORAL_TEST_ADDRESS) {
    await bundled;
    process.stdout.write(
      `\ntroupe tests: using the Temporal server at ${process.env.TEMPORAL_TEST_ADDRESS} (TEMPORAL_TEST_ADDRESS)\n`,
    );
    return;
  }
  const server = await startDevServer({
    dynamicConfig: { ...FAST_LOCAL_DYNAMIC_CONFIG },
    headless: true,
    cliLog: (line) => process.stderr.write(`${line}\n`),
    log: process.env.TROUPE_TEST_SERVER_LOG ? (line) => process.stderr.write(`[temporal] ${line}\n`) : undefined,
  });
  try {
    await bundled;
  } catch (err) {
    await server.stop();
    throw err;
  }
  (globalThis as Record<string, unknown>)[GLOBAL_SERVER_KEY] = server;
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  process.env.TEMPORAL_TEST_NAMESPACE = server.namespace;
  process.env.TEMPORAL_TEST_CLI = server.cliPath;
  process.stdout.write(
    `\ntroupe tests: Temporal dev server ${server.version} started at ${server.address} (pid ${server.pid}, ${server.cliPath})\n`,
  );
}

/**
 * The compose stack's one-shot namespace job (deploy/scripts/setup-namespace.sh), run with the real
 * `temporal` CLI against the test server: it creates the namespace and registers troupe's search
 * attributes with their types, and a second run (a restarted stack) succeeds without changes.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { temporal } from '@temporalio/proto';
import { connectClient, testAddress, type TestClient } from '../helpers/temporal';

const run = promisify(execFile);
const SCRIPT = path.resolve(__dirname, '..', '..', 'deploy', 'scripts', 'setup-namespace.sh');
const { IndexedValueType } = temporal.api.enums.v1;

let tc: TestClient;
let bin: string;

beforeAll(async () => {
  tc = await connectClient();
  // the job calls `temporal` from PATH, as in the admin-tools image
  bin = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-cli-'));
  fs.symlinkSync(process.env.TEMPORAL_TEST_CLI || process.env.TEMPORAL_CLI || 'temporal', path.join(bin, 'temporal'));
});
afterAll(async () => {
  await tc?.close();
  fs.rmSync(bin, { recursive: true, force: true });
});

test('creates the namespace with troupe’s Keyword and Bool attributes, and a second run changes nothing', async () => {
  const namespace = `compose-${randomUUID().slice(0, 8)}`;
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: namespace };
  const first = await run('sh', [SCRIPT], { env, timeout: 120_000 });
  expect(first.stdout).toContain(`namespace ${namespace} created`);

  const described = await tc.connection.workflowService.describeNamespace({ namespace });
  expect(described.namespaceInfo?.name).toBe(namespace);
  const { customAttributes } = await tc.connection.operatorService.listSearchAttributes({ namespace });
  expect(customAttributes).toMatchObject({
    TroupeGraph: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    TroupeStatus: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    TroupeReason: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    TroupeWaiting: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
    TroupeThread: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  });

  const second = await run('sh', [SCRIPT], { env, timeout: 120_000 });
  expect(second.stdout).toContain(`namespace ${namespace} exists`);
  expect((await tc.connection.operatorService.listSearchAttributes({ namespace })).customAttributes).toEqual(customAttributes);
});

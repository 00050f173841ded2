/**
 * troupe reaches a secured Temporal the way every Temporal tool does. A TLS-terminating proxy with
 * a throwaway CA stands in front of the test dev server (one that also demands a client
 * certificate, as mTLS does); the real `troupe worker` process and `troupe run` process, each
 * started with nothing but PATH, an empty HOME and the settings under test, complete a run
 * configured only by `TEMPORAL_*` variables, then only by a profile file. Without the right CA, or
 * with an API key the server rejects, both stop with one line naming what to check.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CONNECTION_TEXTS } from '../../src/connection';
import { troupeProcess } from '../helpers/cli';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, testAddress, uniqueTaskQueue, uniqueWorkflowId, type TestClient } from '../helpers/temporal';
import { makeTestPki, startHeaderRecorder, startTlsProxy, type HeaderRecorder, type TestEndpoint, type TestPki } from '../helpers/tls';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

const ROLE = `
name: secured
task: "Write about tides"
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
      - max_iterations: 3
`;

describe('a Temporal behind TLS', () => {
  let pki: TestPki;
  let otherPki: TestPki;
  let tlsProxy: TestEndpoint;
  let mtlsProxy: TestEndpoint;
  let recorder: HeaderRecorder;
  let stub: StubLlm;
  let tc: TestClient;
  let home: string;
  let roleFile: string;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    pki = makeTestPki();
    otherPki = makeTestPki('another CA');
    tlsProxy = await startTlsProxy(pki, testAddress());
    mtlsProxy = await startTlsProxy(pki, testAddress(), { requireClientCert: true });
    recorder = await startHeaderRecorder(pki);
    stub = await startStubLlm();
    tc = await connectClient();
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-home-'));
    roleFile = path.join(home, 'role.yaml');
    fs.writeFileSync(roleFile, ROLE);
  });
  afterAll(async () => {
    for (const w of workers) await w.kill();
    await tc?.close();
    await stub?.close();
    await recorder?.close();
    await mtlsProxy?.close();
    await tlsProxy?.close();
  });

  /** What a shell with no Temporal settings has: PATH and an empty HOME (so no default profile file). */
  const bare = () => ({ PATH: process.env.PATH ?? '', HOME: home });

  /** Start `troupe worker` and `troupe run --json` with the same Temporal settings; the run's result and where it ran. */
  async function runThrough(temporal: Record<string, string>) {
    stub.script('critic', [{ text: 'sound. score: 90' }]);
    const queue = uniqueTaskQueue('tls');
    const worker = await startWorkerProcess(
      { ...temporal, TROUPE_TASK_QUEUE: queue, OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'test-key' },
      120_000,
      [],
      bare(),
    );
    workers.push(worker);
    const id = uniqueWorkflowId('tls');
    const run = await troupeProcess(['run', roleFile, '--id', id, '--json'], { ...bare(), ...temporal, TROUPE_TASK_QUEUE: queue }, 120_000);
    await worker.stop();
    return { worker, run, id };
  }

  test('mTLS configured only by TEMPORAL_* variables: the worker and troupe run complete a run', async () => {
    const { worker, run, id } = await runThrough({
      TEMPORAL_ADDRESS: mtlsProxy.address,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.files.caCert,
      TEMPORAL_TLS_CLIENT_CERT_PATH: pki.files.clientCert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: pki.files.clientKey,
    });
    expect(worker.output()).toContain(`on ${mtlsProxy.address} (namespace default)`);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toMatchObject({ workflowId: id, status: 'completed', finalText: 'sound. score: 90' });
    // the run is on the dev server behind the proxy
    expect((await tc.client.workflow.getHandle(id).describe()).status.name).toBe('COMPLETED');
  }, 240_000);

  test('configured only by a profile file (TEMPORAL_CONFIG_FILE + TEMPORAL_PROFILE): the worker and troupe run complete a run', async () => {
    const profiles = writeProfiles();
    const { worker, run, id } = await runThrough({ TEMPORAL_CONFIG_FILE: profiles, TEMPORAL_PROFILE: 'secure' });
    expect(worker.output()).toContain(`on ${mtlsProxy.address} (namespace default)`);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toMatchObject({ workflowId: id, status: 'completed' });
  }, 240_000);

  test('without the CA, the worker and troupe run stop with one line naming the CA setting', async () => {
    const untrusted = CONNECTION_TEXTS.untrusted('unable to verify the first certificate');
    const noCa = { ...bare(), TEMPORAL_ADDRESS: tlsProxy.address, TEMPORAL_TLS: 'true' };
    const expected = `${CONNECTION_TEXTS.cannotConnect(tlsProxy.address, true, untrusted, CONNECTION_TEXTS.setCa)}\n`;
    for (const argv of [['worker'], ['run', roleFile]]) {
      const r = await troupeProcess(argv, noCa);
      expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 1, stderr: expected });
    }
    // a profile whose CA did not sign the server's certificate: the line names the profile's setting
    const wrongCa = { ...bare(), TEMPORAL_CONFIG_FILE: writeProfiles(), TEMPORAL_PROFILE: 'other-ca' };
    const where = CONNECTION_TEXTS.inProfile('tls.server_ca_cert_path', 'other-ca', wrongCa.TEMPORAL_CONFIG_FILE);
    const expectedWrongCa = `${CONNECTION_TEXTS.cannotConnect(tlsProxy.address, true, untrusted, CONNECTION_TEXTS.check(where))}\n`;
    for (const argv of [['worker'], ['run', roleFile]]) {
      const r = await troupeProcess(argv, wrongCa);
      expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 1, stderr: expectedWrongCa });
    }
  }, 240_000);

  test('an API key is sent as "authorization: Bearer"; one the server rejects stops both with one line naming TEMPORAL_API_KEY', async () => {
    const env = { ...bare(), TEMPORAL_ADDRESS: recorder.address, TEMPORAL_API_KEY: 'secret-key', TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.files.caCert };
    const rejected = CONNECTION_TEXTS.unauthenticated('UNAUTHENTICATED: Request unauthorized.');
    const expected = `${CONNECTION_TEXTS.cannotConnect(recorder.address, true, rejected, CONNECTION_TEXTS.check('TEMPORAL_API_KEY'))}\n`;
    for (const argv of [['worker'], ['run', roleFile]]) {
      const before = recorder.requests.length;
      const r = await troupeProcess(argv, env);
      expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 1, stderr: expected });
      const seen = recorder.requests.slice(before).map((h) => h.authorization);
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set(['Bearer secret-key']));
    }
  }, 240_000);

  /** The profile file: `default` points nowhere (so only the chosen profile can work), `secure` is the mTLS proxy. */
  function writeProfiles(): string {
    const file = path.join(home, 'temporal.toml');
    fs.writeFileSync(
      file,
      [
        '[profile.default]',
        'address = "127.0.0.1:1"',
        '',
        '[profile.secure]',
        `address = "${mtlsProxy.address}"`,
        '[profile.secure.tls]',
        `server_ca_cert_path = "${pki.files.caCert}"`,
        `client_cert_path = "${pki.files.clientCert}"`,
        `client_key_path = "${pki.files.clientKey}"`,
        '',
        '[profile.other-ca]',
        `address = "${tlsProxy.address}"`,
        '[profile.other-ca.tls]',
        `server_ca_cert_path = "${otherPki.files.caCert}"`,
        '',
      ].join('\n'),
    );
    return file;
  }
});

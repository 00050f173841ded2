/**
 * While an agent's model call streams, `troupe status` (the real CLI) shows what it has written so
 * far, read from the run's pending activities (docs/observability.md, "Live output"): `--json`
 * carries `inFlight[].partialText`, which grows from one reading to the next and is always a prefix
 * of the reply the model is sending; the plain status prints its last line; once the call has
 * ended, no partial text is left. A team agent's child run has pending activities of its own: the
 * parent's status shows the child's agent writing under `childRuns`. With TROUPE_PAYLOAD_KEY set the
 * heartbeat details are stored encrypted, and the CLI still reads them with its codec.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRoleFile } from '../../src/config-file';
import { AesGcmCodec, CODEC_ENV, payloadKeysFromEnv } from '../../src/codec';
import type { InFlightEntry } from '../../src/core/observe/live';
import { followRun, type FollowEvent } from '../../src/client/follow';
import { readInFlightCalls } from '../../src/client/pending-activities';
import { troupe } from '../helpers/cli';
import { startHarness, type Harness } from '../helpers/runs';

const SOLO = `
name: streamed
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`;

/** 60 numbered lines, 1,500 characters: at 16 characters every 100 ms, about 9 s of streaming. */
const REPLY = Array.from({ length: 60 }, (_, i) => `Line ${String(i + 1).padStart(2, '0')} of the tide.\n`).join('');
const SLOW = { chunkChars: 16, chunkDelayMs: 100 };

interface StatusJson {
  phase: string;
  inFlight: InFlightEntry[];
  childRuns?: Array<{ agent: string; status: StatusJson }>;
}

async function statusJson(id: string): Promise<StatusJson> {
  const r = await troupe('status', id, '--json');
  expect(r).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(r.stdout) as StatusJson;
}

/** The writer's entry once `pred` holds for it (reads `troupe status --json` again until then). */
async function writerWhen(id: string, pred: (e: InFlightEntry) => boolean, what: string, timeoutMs = 30_000): Promise<InFlightEntry> {
  const deadline = Date.now() + timeoutMs;
  let last: StatusJson | undefined;
  while (Date.now() < deadline) {
    last = await statusJson(id);
    const e = last.inFlight.find((x) => x.agent === 'writer');
    if (e && pred(e)) return e;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`troupe status --json never showed ${what}; last: ${JSON.stringify(last)}`);
}

describe('troupe status and a streaming agent', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('--json reports the growing partial text of the in-flight agent, the plain status its last line, and none once the call ends', async () => {
    h.stub.script('writer', [{ text: REPLY, stream: SLOW }]);
    const handle = await h.start(SOLO);
    const id = handle.workflowId;

    const first = await writerWhen(id, (e) => (e.chars ?? 0) > 0, 'partial text');
    expect(first).toMatchObject({ agent: 'writer', kind: 'agent', activityType: 'callAgent', attempt: 1 });
    expect(REPLY.startsWith(first.partialText!)).toBe(true);
    expect(first.chars).toBe(first.partialText!.length);
    expect(first.chars!).toBeLessThan(REPLY.length);
    expect(Date.parse(first.lastHeartbeatAt!)).toBeGreaterThan(Date.now() - 60_000);

    const later = await writerWhen(id, (e) => (e.chars ?? 0) > first.chars! + 32, 'the text growing');
    expect(later.partialText!.startsWith(first.partialText!)).toBe(true);
    expect(REPLY.startsWith(later.partialText!)).toBe(true);

    // the plain status: the agent in flight, and the last line it has written
    const plain = await troupe('status', id);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('in flight: writer');
    expect(plain.stdout).toMatch(/\n {2}writer is writing \(\d+ chars\): \S[^\n]*\n/);

    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const ended = await troupe('status', id, '--json');
    expect(JSON.parse(ended.stdout)).toMatchObject({ phase: 'finished', inFlight: [] });
    expect(ended.stdout).not.toContain('partialText');
    expect(h.stub.requestsFor('writer')[0]).toMatchObject({ streamed: true });
  }, 90_000);

  test('followRun with liveText emits the growing text, at most one reading a second, and none without it', async () => {
    h.stub.script('writer', [{ text: REPLY, stream: SLOW }]);
    const handle = await h.start(SOLO);
    const began = Date.now();
    const live: Array<Extract<FollowEvent, { kind: 'live' }>> = [];
    await followRun(handle, (e) => e.kind === 'live' && live.push(e), { liveText: true });
    const elapsed = Date.now() - began;
    const texts = live.flatMap((e) => e.calls.filter((c) => c.agent === 'writer').map((c) => c.partialText));
    expect(texts.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < texts.length; i++) expect(texts[i].startsWith(texts[i - 1])).toBe(true);
    expect(texts.every((t) => REPLY.startsWith(t))).toBe(true);
    // a reading a second at most (an event only when the text changed)
    expect(live.length).toBeLessThanOrEqual(Math.ceil(elapsed / 1_000) + 1);
    // off by default: the follow of troupe's library and of plain output reads no text
    h.stub.script('writer', [{ text: REPLY.slice(0, 200), stream: SLOW }]);
    const quiet: FollowEvent[] = [];
    await followRun(await h.start(SOLO), (e) => quiet.push(e));
    expect(quiet.filter((e) => e.kind === 'live')).toEqual([]);
  }, 90_000);

  test("a team agent's child run: the parent's status shows the child's agent writing under childRuns", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-live-team-'));
    fs.writeFileSync(path.join(dir, 'team.yaml'), SOLO.replace('name: streamed', 'name: writing-team'));
    fs.writeFileSync(
      path.join(dir, 'role.yaml'),
      `name: parent\nagents:\n  team: { description: Writes, team: ./team.yaml }\ncollaboration:\n  topology: pipeline\n  agents: [team]\n`,
    );
    const loaded = loadRoleFile(path.join(dir, 'role.yaml'));
    expect(loaded.errors).toEqual([]);
    h.stub.script('writer', [{ text: REPLY, stream: SLOW }]);
    const handle = await h.start(loaded.graph!);
    const deadline = Date.now() + 30_000;
    let status: StatusJson;
    for (;;) {
      status = await statusJson(handle.workflowId);
      if (status.childRuns?.[0]?.status.inFlight.some((e) => (e.chars ?? 0) > 0)) break;
      if (Date.now() > deadline) throw new Error(`no child text: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // the parent's own agent is a child workflow, no model call: its name only
    expect(status.inFlight).toEqual([{ agent: 'team' }]);
    const child = status.childRuns![0];
    expect(child.agent).toBe('team');
    expect(child.status.inFlight).toEqual([expect.objectContaining({ agent: 'writer', kind: 'agent', activityType: 'callAgent' })]);
    expect(REPLY.startsWith(child.status.inFlight[0].partialText!)).toBe(true);
    expect((await troupe('status', handle.workflowId)).stdout).toMatch(/\n {4}writer is writing \(\d+ chars\): /);
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    fs.rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});

describe('troupe status and a streaming agent of an encrypted run', () => {
  const KEY = randomBytes(32).toString('base64');
  const saved = process.env[CODEC_ENV.key];
  let h: Harness;
  beforeAll(async () => {
    const keys = payloadKeysFromEnv({ [CODEC_ENV.key]: KEY })!;
    h = await startHarness({ workerOptions: { dataConverter: { payloadCodecs: [new AesGcmCodec(keys)] } } });
    process.env[CODEC_ENV.key] = KEY;
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env[CODEC_ENV.key];
    else process.env[CODEC_ENV.key] = saved;
    await h?.close();
  });

  test('the server stores the heartbeat details encrypted, and the CLI reads them with its key', async () => {
    h.stub.script('writer', [{ text: REPLY, stream: SLOW }]);
    const handle = await h.start(SOLO);
    const id = handle.workflowId;
    const seen = await writerWhen(id, (e) => (e.chars ?? 0) > 0, 'partial text');
    expect(REPLY.startsWith(seen.partialText!)).toBe(true);

    // what the server holds: an encrypted payload, none of the text
    const raw = await h.client.workflowService.describeWorkflowExecution({ namespace: h.client.options.namespace, execution: { workflowId: id } });
    const details = raw.pendingActivities?.[0]?.heartbeatDetails?.payloads ?? [];
    expect(details).toHaveLength(1);
    expect(Buffer.from(details[0].metadata!.encoding!).toString()).toBe('binary/encrypted');
    expect(Buffer.from(details[0].data!).toString('latin1')).not.toContain('of the tide');

    // a client without the key reads no call from it, and no error
    expect(await readInFlightCalls(h.client.workflow.getHandle(id))).toEqual([]);
    // the result is encrypted too: read by the CLI, with its key
    expect(await troupe('result', id)).toMatchObject({ code: 0 });
  }, 90_000);
});

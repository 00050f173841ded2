/**
 * A pending activity of DescribeWorkflowExecution read as an in-flight model call: its heartbeat
 * detail decoded with the client's data converter, the codec included (an encrypted run's details
 * are encrypted), its attempt and last heartbeat kept. A tool's details, an older worker's empty
 * beat, garbage, or a detail encrypted with a key this client lacks are no call, never a failure.
 */
import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { encodeToPayloads, loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { CODEC_ENV, troupeDataConverter } from '../../../src/codec';
import { callOf, type PendingActivity } from '../../../src/client/pending-activities';

const LIVE = { agent: 'writer', kind: 'agent', partialText: 'The tide comes in', chars: 17 };
const BEAT = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

const encrypting = loadDataConverter(troupeDataConverter({ [CODEC_ENV.key]: randomBytes(32).toString('base64') }));
const otherKey = loadDataConverter(troupeDataConverter({ [CODEC_ENV.key]: randomBytes(32).toString('base64') }));
const plain = loadDataConverter(troupeDataConverter({}));

async function pending(converter: typeof plain, details: unknown[], activityType = 'callAgent'): Promise<PendingActivity> {
  const payloads = (await encodeToPayloads(converter, ...details)) as Payload[];
  return { activityId: '7', activityType: { name: activityType }, attempt: 2, heartbeatDetails: { payloads }, lastHeartbeatTime: msNumberToTs(BEAT) };
}

const source = (converter: typeof plain) => ({ converter, namespace: 'default', workflowId: 'run-1' });

test('an encrypted detail is decoded with the codec into the call, its attempt and last heartbeat', async () => {
  const a = await pending(encrypting, [LIVE]);
  const raw = Buffer.from(a.heartbeatDetails!.payloads![0].data!).toString('latin1');
  expect(raw).not.toContain('The tide');
  expect(await callOf(source(encrypting), a)).toEqual({
    ...LIVE,
    activityType: 'callAgent',
    activityId: '7',
    attempt: 2,
    lastHeartbeatAt: '2026-01-02T03:04:05.678Z',
  });
});

test('a plain detail is read too, and a call without a heartbeat time has none', async () => {
  const a = await pending(plain, [LIVE], 'callModel');
  delete a.lastHeartbeatTime;
  expect(await callOf(source(plain), a)).toEqual({ ...LIVE, activityType: 'callModel', activityId: '7', attempt: 2 });
});

test('a detail encrypted with a key this client lacks is no call', async () => {
  expect(await callOf(source(otherKey), await pending(encrypting, [LIVE]))).toBeUndefined();
  expect(await callOf(source(plain), await pending(encrypting, [LIVE]))).toBeUndefined();
});

test.each([
  ['a tool heartbeating a LiveText-shaped detail of its own', [LIVE], 'callTool'],
  ['an older worker that heartbeats nothing', [], 'callAgent'],
  ['a detail that is not a LiveText', [{ progress: 3 }], 'judgeConvergence'],
  ['a number', [7], 'compactTranscript'],
])('%s is no call', async (_what, details, type) => {
  expect(await callOf(source(plain), await pending(plain, details, type))).toBeUndefined();
});

test('a payload that is not JSON is no call', async () => {
  const a = await pending(plain, [LIVE]);
  a.heartbeatDetails!.payloads![0] = { ...a.heartbeatDetails!.payloads![0], data: Buffer.from('{not json') };
  expect(await callOf(source(plain), a)).toBeUndefined();
  expect(await callOf(source(plain), { activityType: { name: 'callAgent' } })).toBeUndefined();
});

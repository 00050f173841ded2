/**
 * No reply can push a run past Temporal's pending-activity limit (2,000; past it every workflow task
 * of the run fails, forever): a reply asking for 2,100 tool calls runs the first
 * `max_parallel_tool_calls` (default 32), the others get an error text and never run, a warning says
 * so, and the run ends cleanly with every workflow task completed. Across a wave, the run keeps at
 * most 1,024 tool calls pending: nine agents asking for 128 calls each (1,152) wait for slots.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TURN_TEXTS } from '../../src/core/llm/next-step';
import { temporal } from '@temporalio/proto';
import { DEFAULT_PARALLEL_TOOL_CALLS, MAX_PARALLEL_TOOL_CALLS } from '../../src/core/config/limits';
import { MAX_PENDING_TOOL_CALLS } from '../../src/workflows/tool-dispatch';
import { rawHistory } from '../helpers/history-scan';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const EventType = temporal.api.enums.v1.EventType;
const CALLS = 2100;

const role = (limit = '') => `
name: flood
agents:
  caller: { instructions: "Call tools.", tools: [shout]${limit} }
collaboration:
  topology: pipeline
  agents: [caller]
`;

describe('a reply with 2,100 tool calls', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.h.stub.reset());

  test.each([
    ['the default bound', '', DEFAULT_PARALLEL_TOOL_CALLS],
    ['max_parallel_tool_calls: 5', ', max_parallel_tool_calls: 5', 5],
  ])('runs %s and refuses the rest; the run ends cleanly', async (_name, limit, runs) => {
    const calls = Array.from({ length: CALLS }, (_, i) => ({ id: `c${i}`, name: 'shout', arguments: { text: `n${i}`, times: 1 } }));
    t.h.stub.script('caller', [{ toolCalls: calls }, { text: 'done' }]);
    const handle = await t.h.start(role(limit));
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'done' });
    expect(r.usage.toolCalls?.total).toBe(runs);
    expect(r.warnings).toContain(TURN_TEXTS.tooManyCallsWarning('caller', CALLS, runs));

    const answers = t.h.stub.requestsFor('caller')[1].messages.filter((m) => m.role === 'tool');
    expect(answers).toHaveLength(CALLS);
    expect(answers.slice(0, runs).map((m) => m.content)).toEqual(calls.slice(0, runs).map((c) => c.arguments.text.toUpperCase()));
    expect(new Set(answers.slice(runs).map((m) => m.content))).toEqual(new Set([TURN_TEXTS.tooManyCalls(runs)]));

    const events = (await rawHistory(t.h.client, handle.workflowId)).events ?? [];
    expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && e.activityTaskScheduledEventAttributes?.activityType?.name === 'callTool')).toHaveLength(runs);
    expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED || e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT)).toEqual([]);
  });

  test('a wave of nine agents asking for 128 calls each keeps at most 1,024 pending at once, and all run', async () => {
    const agents = Array.from({ length: 9 }, (_, i) => `a${i}`);
    // every call is held until the gate file exists, so none closes before the wave has asked for all 1,152
    const gate = path.join(t.folder('wave'), 'open');
    const calls = Array.from({ length: MAX_PARALLEL_TOOL_CALLS }, (_, i) => ({ name: 'held', arguments: { gate, text: `n${i}` } }));
    for (const a of agents) t.h.stub.script(a, [{ toolCalls: calls }, { text: `${a} done` }]);
    const handle = await t.h.start(`
name: wide
agents:
${agents.map((a) => `  ${a}: { instructions: "Call.", tools: [held], max_parallel_tool_calls: ${MAX_PARALLEL_TOOL_CALLS} }`).join('\n')}
collaboration: { topology: star, agents: [${agents.join(', ')}] }
`);
    // the run holds the bound: 1,024 tool calls pending (and the nine model calls answered) before any closes
    const deadline = Date.now() + 60_000;
    for (;;) {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      const tools = pending.filter((a) => a.activityType?.name === 'callTool').length;
      if (tools >= MAX_PENDING_TOOL_CALLS && t.h.stub.requests.length >= agents.length) break;
      if (Date.now() > deadline) throw new Error(`the wave never had ${MAX_PENDING_TOOL_CALLS} tool calls pending (last: ${tools})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    fs.writeFileSync(gate, '');
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed' });
    expect(r.usage.toolCalls?.total).toBe(agents.length * MAX_PARALLEL_TOOL_CALLS);
    // pending tool activities over the history: scheduled and not yet closed
    const events = (await rawHistory(t.h.client, handle.workflowId)).events ?? [];
    const toolIds = new Set<string>();
    let pending = 0;
    let most = 0;
    for (const e of events) {
      if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && e.activityTaskScheduledEventAttributes?.activityType?.name === 'callTool') {
        toolIds.add(String(e.eventId));
        most = Math.max(most, (pending += 1));
      }
      const closed = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes ?? e.activityTaskCanceledEventAttributes;
      if (closed && toolIds.has(String(closed.scheduledEventId))) pending -= 1;
    }
    expect(most).toBe(MAX_PENDING_TOOL_CALLS);
  }, 180_000);
});

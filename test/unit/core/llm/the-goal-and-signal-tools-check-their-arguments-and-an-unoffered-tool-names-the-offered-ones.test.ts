import type { GoalSnapshot } from '../../../../src/core/llm/contract';
import {
  GOAL_TOOL,
  SIGNAL_TOOL,
  BUILTIN_TOOL_TEXTS,
  handleToolCall,
  toolDefinitions,
  type ToolCallContext,
} from '../../../../src/core/llm/builtin-tools';

const goal: GoalSnapshot = { objective: 'ship v1', status: 'active', turnCount: 3, maxTurns: 10 };
const both: ToolCallContext = { offered: ['goal', 'signal'], goal };
const call = (name: string, args: unknown, ctx: ToolCallContext = both) =>
  handleToolCall(name, typeof args === 'string' ? args : JSON.stringify(args), ctx);
const err = (result: string) => ({ kind: 'error', result });

describe('goal tool validation', () => {
  it('accepts update_status completed with evidence and answers with the status, evidence and progress', () => {
    expect(call('goal', { action: 'update_status', status: 'completed', evidence: 'tests pass' })).toEqual({
      kind: 'ok',
      result: 'Goal status updated to: completed\nEvidence: tests pass\n\nCurrent progress: Turn 3/10',
      event: { tool: 'goal', action: 'update_status', status: 'completed', evidence: 'tests pass' },
    });
  });

  it('rejects completed without evidence, or with blank evidence', () => {
    expect(call('goal', { action: 'update_status', status: 'completed' })).toEqual(err(BUILTIN_TOOL_TEXTS.errorCompletedNeedsEvidence));
    expect(call('goal', { action: 'update_status', status: 'completed', evidence: '  ' })).toEqual(
      err(BUILTIN_TOOL_TEXTS.errorCompletedNeedsEvidence),
    );
  });

  it('requires a reason for blocked and carries it in the event', () => {
    expect(call('goal', { action: 'update_status', status: 'blocked' })).toEqual(err(BUILTIN_TOOL_TEXTS.errorBlockedNeedsReason));
    expect(call('goal', { action: 'update_status', status: 'blocked', reason: 'need API key' })).toMatchObject({
      kind: 'ok',
      event: { tool: 'goal', action: 'update_status', status: 'blocked', reason: 'need API key' },
    });
  });

  it('accepts active and paused without extra fields, case-insensitively', () => {
    expect(call('goal', { action: 'UPDATE_STATUS', status: 'Paused' })).toMatchObject({
      kind: 'ok',
      event: { tool: 'goal', action: 'update_status', status: 'paused' },
    });
    expect(call('goal', { action: 'update_status', status: 'active' })).toMatchObject({ kind: 'ok' });
  });

  it('rejects a missing or unknown status, including limit_reached', () => {
    expect(call('goal', { action: 'update_status' })).toEqual(err(BUILTIN_TOOL_TEXTS.errorStatus));
    expect(call('goal', { action: 'update_status', status: 'limit_reached' })).toEqual(err(BUILTIN_TOOL_TEXTS.errorStatus));
  });

  it('requires objective for update_objective and evidence for add_evidence', () => {
    expect(call('goal', { action: 'update_objective' })).toEqual(err(BUILTIN_TOOL_TEXTS.errorObjectiveRequired));
    expect(call('goal', { action: 'update_objective', objective: 'ship v2' })).toMatchObject({
      kind: 'ok',
      event: { tool: 'goal', action: 'update_objective', objective: 'ship v2' },
    });
    expect(call('goal', { action: 'add_evidence', evidence: '' })).toEqual(err(BUILTIN_TOOL_TEXTS.errorEvidenceRequired));
    expect(call('goal', { action: 'add_evidence', evidence: 'all green' })).toEqual({
      kind: 'ok',
      result: 'Evidence added and goal marked as completed: all green\n\nCurrent progress: Turn 3/10',
      event: { tool: 'goal', action: 'add_evidence', evidence: 'all green' },
    });
  });

  it('rejects unknown actions, non-string fields, bad JSON and a run without a goal', () => {
    expect(call('goal', { action: 'delete' })).toEqual(err(BUILTIN_TOOL_TEXTS.errorUnknownAction('delete')));
    expect(call('goal', { action: 'update_status', status: 'completed', evidence: 42 })).toEqual(
      err(BUILTIN_TOOL_TEXTS.errorNotString('evidence')),
    );
    expect(call('goal', '{not json')).toEqual(err(BUILTIN_TOOL_TEXTS.errorBadJson));
    expect(call('goal', '[1]')).toEqual(err(BUILTIN_TOOL_TEXTS.errorBadJson));
    expect(call('goal', { action: 'add_evidence', evidence: 'x' }, { offered: ['goal'] })).toEqual(
      err(BUILTIN_TOOL_TEXTS.errorNoGoal),
    );
  });
});

describe('signal tool validation', () => {
  it('turns a valid signal into an event with payload and summary', () => {
    expect(call('signal', { type: 'draft_ready', payload: { v: 2 }, summary: 'draft 2' })).toEqual({
      kind: 'ok',
      result: "Signal 'draft_ready' recorded.",
      event: { tool: 'signal', type: 'draft_ready', payload: { v: 2 }, summary: 'draft 2' },
    });
  });

  it('tells the model a human will answer for the three HITL types', () => {
    for (const type of ['need_approval', 'need_clarification', 'blocked']) {
      const outcome = call('signal', { type });
      expect(outcome).toEqual({
        kind: 'ok',
        result: `Signal '${type}' recorded. ${BUILTIN_TOOL_TEXTS.signalAwaitsHuman}`,
        event: { tool: 'signal', type },
      });
    }
  });

  it('rejects types outside [a-z][a-z0-9_]*, non-object payloads and non-string summaries', () => {
    for (const type of ['Need_approval', '1abc', 'a-b', '', 'x'.repeat(65), 7]) {
      expect(call('signal', { type })).toEqual(err(BUILTIN_TOOL_TEXTS.errorSignalType));
    }
    expect(call('signal', {})).toEqual(err(BUILTIN_TOOL_TEXTS.errorSignalType));
    expect(call('signal', { type: 'ok', payload: [1] })).toEqual(err(BUILTIN_TOOL_TEXTS.errorSignalPayload));
    expect(call('signal', { type: 'ok', payload: 'x' })).toEqual(err(BUILTIN_TOOL_TEXTS.errorSignalPayload));
    expect(call('signal', { type: 'ok', payload: { big: 'x'.repeat(20_000) } })).toEqual(
      err(BUILTIN_TOOL_TEXTS.errorSignalPayloadSize),
    );
    expect(call('signal', { type: 'ok', summary: 3 })).toEqual(err(BUILTIN_TOOL_TEXTS.errorNotString('summary')));
  });
});

describe('tool offering', () => {
  it('answers unknown or unoffered tools with an error naming the offered tools', () => {
    expect(call('search', {})).toEqual(err("Error: unknown tool 'search'. Available tools: goal, signal."));
    expect(call('goal', { action: 'add_evidence', evidence: 'x' }, { offered: ['signal'], goal })).toEqual(
      err("Error: unknown tool 'goal'. Available tools: signal."),
    );
  });

  it('defines the goal and signal tools as OpenAI function tools with required fields', () => {
    expect(toolDefinitions(['signal', 'goal'])).toEqual([SIGNAL_TOOL, GOAL_TOOL]);
    expect(GOAL_TOOL.function.parameters).toMatchObject({
      type: 'object',
      required: ['action'],
      properties: {
        action: { enum: ['update_status', 'update_objective', 'add_evidence'] },
        status: { enum: ['active', 'completed', 'blocked', 'paused'] },
      },
    });
    expect(SIGNAL_TOOL.function.parameters).toMatchObject({
      required: ['type'],
      properties: { type: { pattern: '^[a-z][a-z0-9_]*$' }, payload: { type: 'object' } },
    });
  });
});

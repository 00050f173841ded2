/**
 * The built-in `goal` and `signal` tools: their OpenAI function definitions and
 * the validation of a model's call into a {@link ToolEvent}. Pure: the agent activity (or the workflow's
 * tool dispatch) answers a call with it, and the workflow later applies the events in wave order. An invalid call changes nothing;
 * its error text goes back to the model as the tool result.
 */
import { REQUEST_SIGNAL_KINDS } from '../humans/requests';
import type { GoalSnapshot, ToolEvent } from './contract';

/** Names of the built-in tools an agent may be offered. */
type BuiltinToolName = 'goal' | 'signal';

/** Statuses the `goal` tool may set (`limit_reached` belongs to the workflow alone). */
const GOAL_TOOL_STATUSES = ['active', 'completed', 'blocked', 'paused'] as const;

/** Actions of the `goal` tool. */
const GOAL_TOOL_ACTIONS = ['update_status', 'update_objective', 'add_evidence'] as const;

/** Signal types the agent may send (`[a-z][a-z0-9_]*`, at most 64 characters). */
const SIGNAL_TYPE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** Signal types that also open a human request. */
const HITL_SIGNAL_TYPES: readonly string[] = Object.keys(REQUEST_SIGNAL_KINDS);

/** Largest signal payload accepted, as JSON characters; the ledger lives in workflow state. */
const MAX_SIGNAL_PAYLOAD_CHARS = 16_384;

/** Every text the tools return to the model, kept together so tests pin them. */
export const BUILTIN_TOOL_TEXTS = {
  goalDescription:
    "Report progress on the run's goal. Use action=update_status with status=completed and evidence when the goal is " +
    'achieved, status=blocked with a reason when you cannot proceed, update_objective to refine the objective, or ' +
    'add_evidence to record evidence and mark the goal completed.',
  signalDescription:
    'Send a structured signal to the run. Types need_approval, need_clarification and blocked ask a human and wait ' +
    'for their reply; any other type (lowercase letters, digits, underscores) is recorded for the graph to react to.',
  progress: (goal: GoalSnapshot) => `Current progress: Turn ${goal.turnCount}/${goal.maxTurns}`,
  statusUpdated: (status: string) => `Goal status updated to: ${status}`,
  reasonLine: (reason: string) => `Reason: ${reason}`,
  evidenceLine: (evidence: string) => `Evidence: ${evidence}`,
  objectiveUpdated: (objective: string) => `Goal objective updated: ${objective}`,
  evidenceAdded: (evidence: string) => `Evidence added and goal marked as completed: ${evidence}`,
  signalRecorded: (type: string) => `Signal '${type}' recorded.`,
  signalAwaitsHuman: 'A human will answer after this turn; finish your reply now and their answer will reach you.',
  errorUnknownTool: (name: string, offered: readonly string[]) =>
    `Error: unknown tool '${name}'. Available tools: ${offered.length > 0 ? offered.join(', ') : 'none'}.`,
  errorBadJson: 'Error: the tool arguments are not a valid JSON object.',
  errorNotString: (field: string) => `Error: "${field}" must be a string.`,
  errorNoGoal: 'Error: this run has no goal to update.',
  errorUnknownAction: (action: string) =>
    `Error: unknown action '${action}'. Use one of: ${GOAL_TOOL_ACTIONS.join(', ')}.`,
  errorStatus: `Error: update_status requires "status", one of: ${GOAL_TOOL_STATUSES.join(', ')}.`,
  errorCompletedNeedsEvidence:
    'Error: update_status with status "completed" requires non-empty "evidence" showing the goal is met.',
  errorBlockedNeedsReason: 'Error: update_status with status "blocked" requires a non-empty "reason".',
  errorObjectiveRequired: 'Error: update_objective requires a non-empty "objective".',
  errorEvidenceRequired: 'Error: add_evidence requires non-empty "evidence".',
  errorSignalType: 'Error: signal "type" must match [a-z][a-z0-9_]* (at most 64 characters).',
  errorSignalPayload: 'Error: signal "payload" must be a JSON object.',
  errorSignalPayloadSize: `Error: signal "payload" is larger than ${MAX_SIGNAL_PAYLOAD_CHARS} characters of JSON.`,
} as const;

/** An OpenAI chat-completions function tool (structurally `ChatCompletionFunctionTool`). */
interface FunctionToolDefinition {
  type: 'function';
  function: { name: BuiltinToolName; description: string; parameters: Record<string, unknown> };
}

/**
 * The `goal` tool as offered to the model.
 * @internal exported for tests
 */
export const GOAL_TOOL: FunctionToolDefinition = {
  type: 'function',
  function: {
    name: 'goal',
    description: BUILTIN_TOOL_TEXTS.goalDescription,
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: [...GOAL_TOOL_ACTIONS] },
        status: { type: 'string', enum: [...GOAL_TOOL_STATUSES] },
        objective: { type: 'string', description: 'New objective (update_objective).' },
        evidence: { type: 'string', description: 'Concrete evidence the goal is met (completed, add_evidence).' },
        reason: { type: 'string', description: 'Why the status changes; required for blocked.' },
      },
      required: ['action'],
      additionalProperties: false,
    },
  },
};

/**
 * The `signal` tool as offered to the model.
 * @internal exported for tests
 */
export const SIGNAL_TOOL: FunctionToolDefinition = {
  type: 'function',
  function: {
    name: 'signal',
    description: BUILTIN_TOOL_TEXTS.signalDescription,
    parameters: {
      type: 'object',
      properties: {
        type: { type: 'string', pattern: '^[a-z][a-z0-9_]*$', description: 'Signal type, e.g. need_approval.' },
        payload: { type: 'object', description: 'Optional structured data for the signal.' },
        summary: { type: 'string', description: 'One line for the human or the log.' },
      },
      required: ['type'],
      additionalProperties: false,
    },
  },
};

/** The built-in tools among an agent's tool names, in order. */
export function builtinToolsOf(names: readonly string[]): BuiltinToolName[] {
  return names.filter((n): n is BuiltinToolName => n === 'goal' || n === 'signal');
}

/** The tool definitions to send for an agent's offered tools, in the order given. */
export function toolDefinitions(tools: readonly BuiltinToolName[]): FunctionToolDefinition[] {
  return tools.map((name) => {
    switch (name) {
      case 'goal':
        return GOAL_TOOL;
      case 'signal':
        return SIGNAL_TOOL;
      default: {
        const never: never = name;
        throw new Error(`unknown built-in tool ${String(never)}`);
      }
    }
  });
}

/** What one tool call yields: the text for the model, and an event only when the call was valid. */
type ToolCallOutcome = { kind: 'ok'; result: string; event: ToolEvent } | { kind: 'error'; result: string };

/**
 * The context a call is validated against: the offered tools and the goal snapshot of this activity.
 * @internal exported for tests
 */
export interface ToolCallContext {
  offered: readonly BuiltinToolName[];
  goal?: GoalSnapshot;
}

type Args = Record<string, unknown>;

const error = (result: string): ToolCallOutcome => ({ kind: 'error', result });
const ok = (text: string, progress: string, event: ToolEvent): ToolCallOutcome => ({ kind: 'ok', result: `${text}\n\n${progress}`, event });

/**
 * Validates one tool call (`name`, raw JSON `argumentsJson`) and returns its outcome; `allOffered`
 * names every tool the agent has, for the error on an unknown one. Never throws.
 */
export function handleToolCall(name: string, argumentsJson: string, ctx: ToolCallContext, allOffered: readonly string[] = ctx.offered): ToolCallOutcome {
  const tool = ctx.offered.find((t) => t === name);
  if (tool === undefined) return error(BUILTIN_TOOL_TEXTS.errorUnknownTool(name, allOffered));
  const args = parseArgs(argumentsJson);
  if (args === undefined) return error(BUILTIN_TOOL_TEXTS.errorBadJson);
  switch (tool) {
    case 'goal':
      return goalCall(args, ctx.goal);
    case 'signal':
      return signalCall(args);
    default: {
      const never: never = tool;
      return error(BUILTIN_TOOL_TEXTS.errorUnknownTool(String(never), ctx.offered));
    }
  }
}

function parseArgs(json: string): Args | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json.trim() === '' ? '{}' : json);
  } catch {
    return undefined;
  }
  return isPlainObject(value) ? value : undefined;
}

function isPlainObject(value: unknown): value is Args {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const filled = (s: string | undefined): s is string => s !== undefined && s.trim() !== '';

/** Reads optional string fields; the first present non-string field is reported. */
function strings<K extends string>(
  args: Args,
  keys: readonly K[],
): { ok: true; values: Partial<Record<K, string>> } | { ok: false; field: K } {
  const values: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const v = args[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return { ok: false, field: key };
    values[key] = v;
  }
  return { ok: true, values };
}

function goalCall(args: Args, goal: GoalSnapshot | undefined): ToolCallOutcome {
  if (goal === undefined) return error(BUILTIN_TOOL_TEXTS.errorNoGoal);
  const read = strings(args, ['action', 'status', 'objective', 'evidence', 'reason'] as const);
  if (!read.ok) return error(BUILTIN_TOOL_TEXTS.errorNotString(read.field));
  const { action: rawAction = '', status: rawStatus, objective, evidence, reason } = read.values;
  const action = GOAL_TOOL_ACTIONS.find((a) => a === rawAction.trim().toLowerCase());
  if (action === undefined) return error(BUILTIN_TOOL_TEXTS.errorUnknownAction(rawAction));
  const progress = BUILTIN_TOOL_TEXTS.progress(goal);
  switch (action) {
    case 'update_status': {
      const status = GOAL_TOOL_STATUSES.find((s) => s === rawStatus?.trim().toLowerCase());
      if (status === undefined) return error(BUILTIN_TOOL_TEXTS.errorStatus);
      if (status === 'completed' && !filled(evidence)) return error(BUILTIN_TOOL_TEXTS.errorCompletedNeedsEvidence);
      if (status === 'blocked' && !filled(reason)) return error(BUILTIN_TOOL_TEXTS.errorBlockedNeedsReason);
      const lines = [BUILTIN_TOOL_TEXTS.statusUpdated(status)];
      if (filled(reason)) lines.push(BUILTIN_TOOL_TEXTS.reasonLine(reason));
      if (filled(evidence)) lines.push(BUILTIN_TOOL_TEXTS.evidenceLine(evidence));
      return {
        kind: 'ok',
        result: `${lines.join('\n')}\n\n${progress}`,
        event: {
          tool: 'goal',
          action,
          status,
          ...(filled(evidence) ? { evidence } : {}),
          ...(filled(reason) ? { reason } : {}),
        },
      };
    }
    case 'update_objective':
      if (!filled(objective)) return error(BUILTIN_TOOL_TEXTS.errorObjectiveRequired);
      return ok(BUILTIN_TOOL_TEXTS.objectiveUpdated(objective), progress, { tool: 'goal', action, objective });
    case 'add_evidence':
      if (!filled(evidence)) return error(BUILTIN_TOOL_TEXTS.errorEvidenceRequired);
      return ok(BUILTIN_TOOL_TEXTS.evidenceAdded(evidence), progress, { tool: 'goal', action, evidence });
    default: {
      const never: never = action;
      return error(BUILTIN_TOOL_TEXTS.errorUnknownAction(String(never)));
    }
  }
}

function signalCall(args: Args): ToolCallOutcome {
  const type = args['type'];
  if (typeof type !== 'string' || !SIGNAL_TYPE_PATTERN.test(type)) return error(BUILTIN_TOOL_TEXTS.errorSignalType);
  const payload = args['payload'];
  if (payload !== undefined && payload !== null) {
    if (!isPlainObject(payload)) return error(BUILTIN_TOOL_TEXTS.errorSignalPayload);
    if (JSON.stringify(payload).length > MAX_SIGNAL_PAYLOAD_CHARS) return error(BUILTIN_TOOL_TEXTS.errorSignalPayloadSize);
  }
  const summary = args['summary'];
  if (summary !== undefined && summary !== null && typeof summary !== 'string') {
    return error(BUILTIN_TOOL_TEXTS.errorNotString('summary'));
  }
  const recorded = BUILTIN_TOOL_TEXTS.signalRecorded(type);
  return {
    kind: 'ok',
    result: HITL_SIGNAL_TYPES.includes(type) ? `${recorded} ${BUILTIN_TOOL_TEXTS.signalAwaitsHuman}` : recorded,
    event: {
      tool: 'signal',
      type,
      ...(isPlainObject(payload) ? { payload } : {}),
      ...(typeof summary === 'string' && summary !== '' ? { summary } : {}),
    },
  };
}

/**
 * The pure pieces of an agent's tool loop: the tools offered to the model, the approval patterns,
 * call ids the workflow can rely on, keeping the loop's messages bounded, and the texts the model and
 * the user see. The workflow (`src/workflows/tool-loop.ts`) sequences them with activities.
 */
import { capText, fitsUtf8, utf8ByteLength } from '../text/utf8';
import { builtinToolsOf, toolDefinitions } from './builtin-tools';
import { globMatches } from './tool-glob';
import { workerFunctionTool, type LoopMessage, type ToolCallRequest, type ToolDefinition, type WorkerFunctionTool } from './tool-contract';

/**
 * Bounds of a tool loop.
 * @internal exported for tests
 */
export const TOOL_LOOP_LIMITS = {
  /** When a dispatch's messages pass this size, earlier rounds' tool results shrink. */
  shrinkAboveBytes: 512 * 1024,
  /** What an earlier round's tool result keeps when it shrinks. */
  shrunkResultBytes: 1024,
  /** Arguments and results in the transcript and `troupe run` lines. */
  briefChars: 160,
} as const;

/** Texts of the tool loop, so tests pin them. */
export const TOOL_LOOP_TEXTS = {
  rejected: (reason: string) => `Rejected by a human: ${reason}`,
  refusedByBudget: (limit: number) =>
    `Error: the run's tool call budget (${limit} calls) is used up; this call was not run. Give your final answer now without tools.`,
  failed: (tool: string, message: string) => `Error: the tool ${tool} failed: ${message}`,
  unknownTool: (name: string, offered: readonly string[]) =>
    `Error: unknown tool '${name}'. Available tools: ${offered.length > 0 ? offered.join(', ') : 'none'}.`,
  closingCallIgnored: (agent: string, rounds: number) =>
    `agent ${agent}: tool calls requested after ${rounds} tool rounds (max_tool_rounds) were ignored`,
  truncatedResult: (agent: string, tool: string, bytes: number) =>
    `agent ${agent}: the result of ${tool} was cut to 64 KiB (${bytes} bytes dropped)`,
  toolFailedWarning: (agent: string, tool: string, message: string) => `agent ${agent}: tool ${tool} failed: ${message}`,
  unknownToolWarning: (agent: string, name: string) => `agent ${agent}: the model called ${name}, which it was not offered`,
  truncatedText: (agent: string, dropped: number, limit: number) =>
    `agent ${agent}: output cut to ${limit} bytes (${dropped} bytes dropped)`,
  requestSummary: (agent: string, tool: string, args: string) => `${agent} wants to call ${tool} ${args}`,
  /** The summary of a request for a call the model wrote as text in its reply instead of making it. */
  requestSummaryAsText: (agent: string, tool: string, args: string) =>
    `${agent} wants to call ${tool} ${args} (written as text in its reply, not made through the tools interface)`,
  tooManyCalls: (limit: number) =>
    `Error: this reply asked for more than ${limit} tool calls (max_parallel_tool_calls); this call was not run. Ask for fewer calls at once.`,
  tooManyCallsWarning: (agent: string, calls: number, limit: number) =>
    `agent ${agent}: a reply asked for ${calls} tool calls; the ${calls - limit} past max_parallel_tool_calls (${limit}) were not run`,
  notOffered: (agent: string, tool: string, why: string) => `agent ${agent}: a call of ${tool} was not offered for approval: ${why}`,
  shrunk: 'earlier tool result shortened to keep the conversation within bounds',
} as const;

/** The tools offered to the model: the built-ins the agent lists, then its worker tools. */
export function modelTools(names: readonly string[], specs: readonly ToolDefinition[]): WorkerFunctionTool[] {
  const builtins: WorkerFunctionTool[] = toolDefinitions(builtinToolsOf(names));
  const worker: WorkerFunctionTool[] = specs.map(workerFunctionTool);
  return [...builtins, ...worker];
}

/** Whether a call of the tool (its role-file name) waits for a human under `approval.tools`. */
export function needsApproval(patterns: readonly string[] | undefined, yamlName: string): boolean {
  return (patterns ?? []).some((p) => globMatches(p, yamlName));
}

/**
 * Call ids the loop can rely on: some endpoints omit them or repeat them, while every call needs its
 * own answer. A missing or repeated id becomes `call_<round>_<index>` (with `_2`, `_3`, … when the
 * endpoint itself used that one).
 */
export function normalizeCallIds(calls: readonly ToolCallRequest[], round: number): ToolCallRequest[] {
  const given = new Set(calls.map((c) => c.id));
  const seen = new Set<string>();
  return calls.map((c, i) => {
    let id = c.id;
    if (!id || seen.has(id)) {
      id = `call_${round}_${i}`;
      for (let n = 2; given.has(id) || seen.has(id); n += 1) id = `call_${round}_${i}_${n}`;
    }
    seen.add(id);
    return { ...c, id };
  });
}

/** A text in brief: whitespace collapsed, at most `chars` characters. */
export function brief(text: string, chars: number = TOOL_LOOP_LIMITS.briefChars): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > chars ? `${flat.slice(0, chars - 1)}…` : flat;
}

function messageBytes(m: LoopMessage): number {
  if (m.role === 'tool') return utf8ByteLength(m.content);
  if (m.role === 'assistant' && 'toolCalls' in m) {
    return utf8ByteLength(m.content ?? '') + m.toolCalls.reduce((n, c) => n + utf8ByteLength(c.arguments) + c.name.length, 0);
  }
  return utf8ByteLength(m.content);
}

/**
 * Keep a dispatch's messages bounded: when they pass 512 KiB, the tool results of earlier rounds (all
 * but the latest round's) shrink to their first KiB with a marker. Returns new messages.
 */
export function shrinkEarlierToolResults(messages: readonly LoopMessage[]): LoopMessage[] {
  const total = messages.reduce((n, m) => n + messageBytes(m), 0);
  if (total <= TOOL_LOOP_LIMITS.shrinkAboveBytes) return [...messages];
  let lastAssistant = -1;
  messages.forEach((m, i) => {
    if (m.role === 'assistant') lastAssistant = i;
  });
  return messages.map((m, i) =>
    m.role === 'tool' && i < lastAssistant && !fitsUtf8(m.content, TOOL_LOOP_LIMITS.shrunkResultBytes)
      ? { ...m, content: capText(m.content, TOOL_LOOP_LIMITS.shrunkResultBytes) }
      : m,
  );
}

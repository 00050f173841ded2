/**
 * A worker tool call as the workflow's tool dispatch (`src/workflows/tool-dispatch.ts`) carries it
 * out: which calls wait for a human (`approval.tools`), the dispatch's messages kept bounded as
 * results pile up, and the texts the model and the user read about a call. Pure.
 */
import { capText, fitsUtf8, utf8ByteLength } from '../text/utf8';
import { globMatches } from './tool-glob';
import type { LoopMessage } from './tool-contract';

/**
 * Bounds of a dispatch's messages.
 * @internal exported for tests
 */
export const TOOL_CALL_LIMITS = {
  /** When a dispatch's messages pass this size, earlier rounds' tool results shrink. */
  shrinkAboveBytes: 512 * 1024,
  /** What an earlier round's tool result keeps when it shrinks. */
  shrunkResultBytes: 1024,
} as const;

/** Texts of a tool call, so tests pin them. */
export const TOOL_CALL_TEXTS = {
  rejected: (reason: string) => `Rejected by a human: ${reason}`,
  refusedByBudget: (limit: number) =>
    `Error: the run's tool call budget (${limit} calls) is used up; this call was not run. Give your final answer now without tools.`,
  failed: (tool: string, message: string) => `Error: the tool ${tool} failed: ${message}`,
  truncatedResult: (agent: string, tool: string, bytes: number) =>
    `agent ${agent}: the result of ${tool} was cut to 64 KiB (${bytes} bytes dropped)`,
  toolFailedWarning: (agent: string, tool: string, message: string) => `agent ${agent}: tool ${tool} failed: ${message}`,
  notOffered: (agent: string, tool: string, why: string) => `agent ${agent}: a call of ${tool} was not offered for approval: ${why}`,
  shrunk: 'earlier tool result shortened to keep the conversation within bounds',
} as const;

/** Whether a call of the tool (its role-file name) waits for a human under `approval.tools`. */
export function needsApproval(patterns: readonly string[] | undefined, yamlName: string): boolean {
  return (patterns ?? []).some((p) => globMatches(p, yamlName));
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
  if (total <= TOOL_CALL_LIMITS.shrinkAboveBytes) return [...messages];
  let lastAssistant = -1;
  messages.forEach((m, i) => {
    if (m.role === 'assistant') lastAssistant = i;
  });
  return messages.map((m, i) =>
    m.role === 'tool' && i < lastAssistant && !fitsUtf8(m.content, TOOL_CALL_LIMITS.shrunkResultBytes)
      ? { ...m, content: capText(m.content, TOOL_CALL_LIMITS.shrunkResultBytes) }
      : m,
  );
}

/**
 * Keeping an agent's input bounded: a deterministic token
 * estimate, UTF-8-safe text cuts, and `planContext`, which trims a prompt input to the hard bounds
 * and to the model's context window and hands back the dropped entries for the compaction activity.
 */
import { PARENT } from '../graph/types';
import { capText, isPairAt, maxUtf8Bytes, utf8ByteLength } from '../text/utf8';
import type { ChatMessage } from '../llm/contract';
import {
  buildAgentMessages,
  OWN_RESULTS_KEPT,
  renderedTriggers,
  THREAD_ENTRIES_KEPT,
  type AgentPromptInput,
} from './build';

/**
 * Hard cap on an agent input: the UTF-8 bytes of all message contents.
 * @internal exported for tests
 */
export const INPUT_CAP_BYTES = 1024 * 1024;

/**
 * Tokens kept free for the reply when the model has no `max_tokens`.
 * @internal exported for tests
 */
export const DEFAULT_RESERVE_TOKENS = 1024;

/** Per-message framing tokens (role and separators), as in OpenAI's chat token accounting. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/** Tokens that prime the assistant's reply, counted once per request. */
const REPLY_PRIMING_TOKENS = 3;

/**
 * Estimated tokens of a text: ASCII at ~4 characters per token (rounded up), every non-ASCII code
 * point (CJK, accented letters, emoji) as 1 token. BPE tokenizers give about that for English and
 * CJK and less for accented Latin, so the estimate errs high; no tokenizer keeps the core pure.
 * @internal exported for tests
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  // code points, as `for…of` reads them (a lone surrogate is one), without the string iterator
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) ascii += 1;
    else {
      other += 1;
      if (isPairAt(text, i)) i += 1;
    }
  }
  return Math.ceil(ascii / 4) + other;
}

/** Estimated prompt tokens of a request: contents plus per-message overhead plus reply priming. */
export function estimateMessagesTokens(messages: ChatMessage[]): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const m of messages) total += estimateTokens(m.content) + MESSAGE_OVERHEAD_TOKENS;
  return total;
}

/** The longest prefix of `text` (whole code points) whose `estimateTokens` is at most `maxTokens`. */
export function cutToTokens(text: string, maxTokens: number): string {
  if (estimateTokens(text) <= maxTokens) return text;
  let ascii = 0;
  let other = 0;
  let end = 0;
  for (const ch of text) {
    const isAscii = (ch.codePointAt(0) ?? 0) < 0x80;
    if (Math.ceil((ascii + (isAscii ? 1 : 0)) / 4) + other + (isAscii ? 0 : 1) > maxTokens) break;
    if (isAscii) ascii += 1;
    else other += 1;
    end += ch.length;
  }
  return text.slice(0, end);
}

/**
 * Cuts the longest texts to a common UTF-8 level (each cut one ending in the truncation marker), as
 * little as possible, so that `fits` holds; the texts themselves when they already fit, undefined when
 * even the markers alone do not. Keeps a compaction request inside the model's context window.
 */
export function fitTexts(texts: string[], fits: (texts: string[]) => boolean): string[] | undefined {
  if (fits(texts)) return texts;
  const at = (level: number): string[] => texts.map((t) => capText(t, level));
  let lo = 0;
  let hi = Math.max(0, ...texts.map(utf8ByteLength));
  if (!fits(at(lo))) return undefined;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(at(mid))) lo = mid;
    else hi = mid - 1;
  }
  return at(lo);
}

/** The outcome of fitting one agent input: the trimmed input and what was dropped from it. */
interface ContextPlan {
  /** The input trimmed to the bounds (and to the window when one was given). */
  input: AgentPromptInput;
  /** `buildAgentMessages(input)`. */
  messages: ChatMessage[];
  /** Removed entries, oldest first, as `agent: text`, for the compaction activity to summarize. */
  overflow: string[];
  /** How many of the oldest `ownRecent` / `thread` entries of the given input were removed. */
  dropped: { ownRecent: number; thread: number };
  /** False when even the minimum input exceeds the window budget or INPUT_CAP_BYTES. */
  fits: boolean;
  /** `estimateMessagesTokens` of the built messages of `input`. */
  estimatedTokens: number;
  /** UTF-8 bytes of the built messages' contents. */
  bytes: number;
  /** Window minus reserve, when a context window was given. */
  budgetTokens?: number;
}

/**
 * Trims an agent input so its built prompt stays bounded. Always: the last OWN_RESULTS_KEPT own
 * results (inbox) or THREAD_ENTRIES_KEPT thread entries (thread). With `contextWindow`: drops the
 * oldest own results / thread entries until the estimate fits `contextWindow - reserveTokens`; the
 * minimum (instructions, task, summary, triggers, notes and, in thread mode, the newest entries that
 * triggered this turn) is never dropped. Last, when the contents exceed INPUT_CAP_BYTES, the longest
 * texts are cut to a common length. Lists the current mode does not show are returned empty.
 */
export function planContext(
  input: AgentPromptInput,
  contextWindow?: number,
  reserveTokens: number = DEFAULT_RESERVE_TOKENS,
): ContextPlan {
  const threadMode = input.graph.context === 'thread';
  const own = threadMode ? [] : input.ownRecent.map((text) => ({ agent: input.agent, text }));
  const thread = threadMode ? input.thread.slice() : [];
  const overflow: string[] = [];
  const dropOldest = (list: { agent: string; text: string }[]): void => {
    const entry = list.shift();
    if (entry) overflow.push(`${entry.agent}: ${entry.text}`);
  };
  while (own.length > OWN_RESULTS_KEPT) dropOldest(own);
  while (thread.length > THREAD_ENTRIES_KEPT) dropOldest(thread);
  const current = (): AgentPromptInput => ({ ...input, ownRecent: own.map((e) => e.text), thread: thread.slice() });

  const budgetTokens = contextWindow === undefined ? undefined : contextWindow - reserveTokens;
  if (budgetTokens !== undefined) {
    const agentTriggers = input.triggers.filter((t) => t.from !== PARENT).length;
    const protectedThread = Math.min(thread.length, Math.max(1, agentTriggers));
    while (estimateMessagesTokens(buildAgentMessages(current())) > budgetTokens) {
      if (own.length > 0) dropOldest(own);
      else if (thread.length > protectedThread) dropOldest(thread);
      else break;
    }
  }

  const { input: trimmed, messages, withinCap } = capInputBytes(current());
  // a step counts what its checks need; the figures only an error message reads are counted on demand
  const tokens = budgetTokens === undefined ? undefined : estimateMessagesTokens(messages);
  const fits = withinCap && (tokens === undefined || tokens <= (budgetTokens ?? Infinity));
  const dropped = {
    ownRecent: threadMode ? 0 : input.ownRecent.length - own.length,
    thread: threadMode ? input.thread.length - thread.length : 0,
  };
  return {
    input: trimmed,
    messages,
    overflow,
    dropped,
    fits,
    get estimatedTokens() {
      return tokens ?? estimateMessagesTokens(messages);
    },
    get bytes() {
      return messagesBytes(messages);
    },
    budgetTokens,
  };
}

/**
 * True when a windowed plan dropped entries that a compaction activity should fold into the summary.
 * @internal exported for tests
 */
export function needsCompaction(plan: ContextPlan): boolean {
  return plan.budgetTokens !== undefined && plan.overflow.length > 0;
}

function messagesBytes(messages: ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + utf8ByteLength(m.content), 0);
}

/** True when the contents fit INPUT_CAP_BYTES even at 3 bytes a UTF-16 unit: most prompts, not counted. */
function fitsUnderCap(messages: ChatMessage[]): boolean {
  return maxUtf8Bytes(messages.reduce((sum, m) => sum + m.content.length, 0)) <= INPUT_CAP_BYTES;
}

/**
 * Cuts every shown text longer than a common level so the contents fit INPUT_CAP_BYTES; the input, its
 * messages, and whether their contents are within the cap (a cut can fall short when the minimum alone
 * exceeds it).
 */
function capInputBytes(input: AgentPromptInput): { input: AgentPromptInput; messages: ChatMessage[]; withinCap: boolean } {
  const messages = buildAgentMessages(input);
  if (fitsUnderCap(messages)) return { input, messages, withinCap: true };
  const excess = messagesBytes(messages) - INPUT_CAP_BYTES;
  if (excess <= 0) return { input, messages, withinCap: true };
  const level = cutLevel(shownTexts(input).map(utf8ByteLength), excess);
  const cut = (text: string): string => capText(text, level);
  const trimmed = {
    ...input,
    task: cut(input.task),
    summary: input.summary === undefined ? undefined : cut(input.summary),
    ownRecent: input.ownRecent.map(cut),
    triggers: input.triggers.map((t) => ({ ...t, text: cut(t.text) })),
    thread: input.thread.map((e) => ({ ...e, text: cut(e.text) })),
    notes: input.notes.map((n) => ({ ...n, text: cut(n.text) })),
  };
  const cutMessages = buildAgentMessages(trimmed);
  return { input: trimmed, messages: cutMessages, withinCap: fitsUnderCap(cutMessages) || messagesBytes(cutMessages) <= INPUT_CAP_BYTES };
}

/** The carried texts the built prompt shows, each once. */
function shownTexts(input: AgentPromptInput): string[] {
  const history =
    input.graph.context === 'thread'
      ? input.thread.map((e) => e.text)
      : [...input.ownRecent, ...renderedTriggers(input).map((t) => t.text)];
  return [input.task, ...(input.summary ? [input.summary] : []), ...history, ...input.notes.map((n) => n.text)];
}

/** The largest byte level L such that cutting every text longer than L to L removes `excess` bytes. */
function cutLevel(sizes: number[], excess: number): number {
  const removed = (level: number): number => sizes.reduce((sum, s) => sum + Math.max(0, s - level), 0);
  let lo = 0;
  let hi = Math.max(0, ...sizes);
  if (removed(lo) < excess) return 0;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (removed(mid) >= excess) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

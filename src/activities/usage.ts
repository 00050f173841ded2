/**
 * The tokens of one model request (docs/semantics.md, "Agent calls"): what the endpoint reported,
 * when it is usage at all (core/llm/reported-usage.ts), else an estimate from the characters of the
 * prompt and the reply, never a silent 0 and never a number the ledger cannot add. Each estimate
 * comes with a warning naming the endpoint, for the run's warnings, given once per run and endpoint
 * on a worker: every run learns its figures are estimates, and a run of many calls to such an
 * endpoint is not flooded. A stream that ended without its usage chunk keeps its own warning
 * (./stream-policy.ts: once per endpoint, as the worker stops streaming to it).
 */
import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { TokenCounts } from '../core/conditions/view';
import { readReportedUsage } from '../core/llm/reported-usage';
import { estimateMessagesTokens, estimateTokens } from '../core/prompts/bounds';
import { shownUrl } from './endpoints';
import type { ReadCompletion } from './responses';
import { firstStreamWithoutUsage } from './stream-policy';
import { ACTIVITY_TEXTS } from './texts';

/** Who made the request: the caller's kind and agent, and its run. */
interface UsageScope {
  kind: 'agent' | 'judge' | 'compaction' | 'selector';
  agent: string;
  workflowId: string;
}

/** The tokens of a request, and the warnings that say they were estimated. */
export interface RequestUsage {
  usage: TokenCounts;
  warnings: string[];
}

/** Runs and endpoints warned of already, by `workflowId` and base URL (bounded: a worker holds a few hundred runs at most). */
const warned = new Set<string>();
const MAX_WARNED = 4096;

/** Whether this run has not yet heard about this endpoint's usage (and remembers that it now has). */
function firstForRun(workflowId: string, baseUrl: string): boolean {
  const key = `${workflowId}\u0000${baseUrl}`;
  if (warned.has(key)) return false;
  if (warned.size >= MAX_WARNED) warned.clear();
  warned.add(key);
  return true;
}

/**
 * The usage of one answered request: the reported counts when they are usage, else the estimate
 * with the warning the run has not had yet.
 */
export function requestUsage(client: OpenAI, body: ChatCompletionCreateParamsNonStreaming, read: ReadCompletion, scope: UsageScope): RequestUsage {
  const url = shownUrl(client.baseURL);
  if (read.streamed && !read.usageReported) {
    // a stream without its usage chunk (docs/observability.md, "Live output")
    const warnings = firstStreamWithoutUsage(client) ? [ACTIVITY_TEXTS.llm.usageEstimated(scope.kind, scope.agent, url)] : [];
    return { usage: estimatedUsage(body, read.completion), warnings };
  }
  const reported = readReportedUsage(read.completion.usage);
  if (reported.kind === 'reported') return { usage: reported.usage, warnings: [] };
  const warning =
    reported.kind === 'absent'
      ? ACTIVITY_TEXTS.llm.usageAbsent(scope.kind, scope.agent, url)
      : ACTIVITY_TEXTS.llm.usageNonsense(scope.kind, scope.agent, url, reported.why);
  return { usage: estimatedUsage(body, read.completion), warnings: firstForRun(scope.workflowId, client.baseURL) ? [warning] : [] };
}

/**
 * Tokens of a call whose usage is not known: the prompt and the reply estimated from their
 * characters, as context windows are (core/prompts/bounds.ts).
 */
function estimatedUsage(body: ChatCompletionCreateParamsNonStreaming, completion: ChatCompletion): TokenCounts {
  const promptTokens = estimateMessagesTokens(
    body.messages.map((m) => ({ role: 'user' as const, content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '') })),
  );
  const message = completion.choices[0]?.message;
  const written = `${message?.content ?? ''}${message?.refusal ?? ''}${message?.tool_calls ? JSON.stringify(message.tool_calls) : ''}`;
  const completionTokens = estimateTokens(written);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

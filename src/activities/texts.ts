/**
 * Every text the LLM activities produce (failure messages, warnings, the judge and compaction
 * prompts), in one place so tests pin them.
 */

import type { LlmFailureDetails } from '../core/llm/contract';

type LlmKind = LlmFailureDetails['kind'];

/**
 * The role setting that sets a call's timeout: the agent's own, or the model defaults' (the judge's
 * model for the judge, the selector's for the selector).
 */
function timeoutSetting(kind: LlmKind, agent: string): string {
  if (kind === 'judge') return 'judge.model.timeout_ms (or model.timeout_ms)';
  if (kind === 'selector') return 'collaboration.selector.model.timeout_ms (or model.timeout_ms)';
  return `agents.${agent}.timeout_ms (or model.timeout_ms)`;
}

/**
 * The role setting of a call's reply cap `key` (`max_reply_bytes`, `max_event_bytes`): the agent's
 * model (compaction runs on it too), the judge's, the selector's, else the role's `model`.
 */
function capSetting(kind: LlmKind, agent: string, key: string): string {
  if (kind === 'judge') return `judge.model.${key} (or model.${key})`;
  if (kind === 'selector') return `collaboration.selector.model.${key} (or model.${key})`;
  return `agents.${agent}.model.${key} (or model.${key})`;
}

export const ACTIVITY_TEXTS = {
  /** Failure message texts, kept together so tests pin them. */
  llm: {
    http: (kind: LlmKind, agent: string, status: number, message: string, requestId?: string) =>
      `${kind} ${agent}: HTTP ${status} ${message}${requestId ? ` (request id ${requestId})` : ''}`,
    timeout: (kind: LlmKind, agent: string, ms: number, configuredMs: number) =>
      `${kind} ${agent}: no reply within ${configuredMs} ms (the request gets the call's timeout minus 1 s: ${ms} ms); ` +
      `a slow model needs more: raise ${timeoutSetting(kind, agent)}`,
    connection: (kind: LlmKind, agent: string, message: string) => `${kind} ${agent}: connection error: ${message}`,
    malformed: (kind: LlmKind, agent: string, requestId?: string) =>
      `${kind} ${agent}: the endpoint returned no completion choice${requestId ? ` (request id ${requestId})` : ''}`,
    noChoice: 'no completion choice in the response',
    noMessage: 'no message',
    malformedBody: (kind: LlmKind, agent: string, why: string, requestId?: string) =>
      `${kind} ${agent}: ${why}${requestId ? ` (request id ${requestId})` : ''}`,
    notJson: (status: number, contentType: string, start: string) =>
      `the endpoint answered HTTP ${status} with a body that is not valid JSON (${contentType})${start ? `: ${start}` : ''}`,
    bodyCutOff: (error: string) => `the response body was cut off: ${error}`,
    streamCutOff: 'the response stream ended before the reply was complete (no [DONE] and no finish_reason)',
    eventNotJson: (start: string) => `the endpoint streamed an event that is not valid JSON: ${start}`,
    /** The endpoint refused `stream: true`; the worker asked again without it and will not stream to it again. */
    noStreaming: (kind: LlmKind, agent: string, url: string) =>
      `${kind} ${agent}: the endpoint ${url} rejected stream: true; asked again without streaming, and this worker will not stream to it again (no live output from it)`,
    /** A stream ended without its usage chunk: the call's tokens are estimated from its characters. */
    usageEstimated: (kind: LlmKind, agent: string, url: string) =>
      `${kind} ${agent}: the endpoint ${url} streamed its reply without usage (stream_options.include_usage ignored); ` +
      'this call\'s tokens are estimated from its characters, and this worker no longer streams to it, so later calls count what it reports',
    /** A whole reply without usage: the call's tokens are estimated (said once per run and endpoint). */
    usageAbsent: (kind: LlmKind, agent: string, url: string) =>
      `${kind} ${agent}: the endpoint ${url} reported no usage; this call's tokens are estimated from its characters` +
      ' (later calls of this run to it that do the same are estimated without another warning)',
    /** Usage that is not token counts (core/llm/reported-usage.ts): the call's tokens are estimated (said once per run and endpoint). */
    usageNonsense: (kind: LlmKind, agent: string, url: string, why: string) =>
      `${kind} ${agent}: the endpoint ${url} reported usage that is not token counts (${why}); this call's tokens are estimated from its characters` +
      ' (later calls of this run to it that do the same are estimated without another warning)',
    /** How a message names an endpoint whose URL it was not given. */
    theEndpoint: 'the endpoint',
    /** A reply past `max_reply_bytes` (core/llm/reply-caps.ts): not retried. The detail is what the run's diagnostics show. */
    replyTooLarge: (kind: LlmKind, agent: string, url: string, cap: string, max: string) =>
      `${kind} ${agent}: ${ACTIVITY_TEXTS.llm.replyTooLargeDetail(kind, agent, url, cap, max)}`,
    replyTooLargeDetail: (kind: LlmKind, agent: string, url: string, cap: string, max: string) =>
      `the reply from ${url} passed ${cap}, the cap on one model reply; not retried, as the next attempt would read the same. ` +
      `A model that writes more needs a larger cap: raise ${capSetting(kind, agent, 'max_reply_bytes')}, at most ${max}`,
    /** One server-sent line or event past `max_event_bytes`: not retried. */
    eventTooLarge: (kind: LlmKind, agent: string, url: string, cap: string, max: string) =>
      `${kind} ${agent}: ${ACTIVITY_TEXTS.llm.eventTooLargeDetail(kind, agent, url, cap, max)}`,
    eventTooLargeDetail: (kind: LlmKind, agent: string, url: string, cap: string, max: string) =>
      `one server-sent event from ${url} passed ${cap} before it ended, the cap on one event; not retried, as the next attempt would read the same. ` +
      `An endpoint that sends more in one event needs a larger cap: raise ${capSetting(kind, agent, 'max_event_bytes')}, at most ${max}`,
    localDetail: (error: string) =>
      `the request could not be built or sent because of an error on the worker's side (not retried): ${error}`,
    local: (kind: LlmKind, agent: string, error: string) => `${kind} ${agent}: ${ACTIVITY_TEXTS.llm.localDetail(error)}`,
    endpointRefused: (kind: LlmKind, agent: string, message: string) => `${kind} ${agent}: ${message}`,
    other: (kind: LlmKind, agent: string, message: string) => `${kind} ${agent}: ${message}`,
  },
  /** Warnings the agent activity adds to its result, kept together so tests pin them. */
  agent: {
    noResponseFormat: (agent: string) =>
      `agent ${agent}: the endpoint rejected response_format json_schema; asked again without it (the schema is in the prompt)`,
  },
  /** The judge's prompts and failure texts, kept together so tests pin them. */
  judge: {
    system:
      'You judge whether a multi-agent collaboration has converged. Decide strictly whether the latest result ' +
      'satisfies the criteria for the task. Reply with only a JSON object: {"converged": true|false, "reason": ' +
      '"<one or two sentences>"}.',
    user: (criteria: string, task: string, agent: string, result: string) =>
      `<criteria>\n${criteria}\n</criteria>\n\n<task>\n${task}\n</task>\n\n` +
      `<result agent="${agent}">\n${result}\n</result>\n\nHas the result converged on the criteria?`,
    unparsable: (agent: string, requestId?: string) =>
      `judge ${agent}: the verdict is not a JSON object with boolean "converged"` +
      (requestId ? ` (request id ${requestId})` : ''),
  },
  /** The compaction prompts and failure texts, kept together so tests pin them. */
  compaction: {
    system: (agent: string, maxTokens: number) =>
      `You maintain the rolling summary of a multi-agent collaboration, as seen by agent "${agent}". Merge the ` +
      `previous summary and the new entries into one summary of at most ${maxTokens} tokens. Keep every decision ` +
      'made, every open issue or requested change, and the latest scores and verdicts (with who gave them). Drop ' +
      'repetition and pleasantries. Reply with the summary text only.',
    user: (summary: string | undefined, entries: string[]) =>
      `<previous_summary>\n${summary?.trim() || '(none)'}\n</previous_summary>\n\n<entries>\n` +
      entries.map((e, i) => `<entry n="${i + 1}">\n${e}\n</entry>`).join('\n') +
      '\n</entries>',
    empty: (agent: string, requestId?: string) =>
      `compaction ${agent}: the summary came back empty${requestId ? ` (request id ${requestId})` : ''}`,
  },
} as const;

/**
 * Replies as real models write them (docs/semantics.md, "Agent calls"). Within one model-call
 * activity, a reply with no tool call is handled once more when:
 *
 * - it wrote a call of an offered tool as text (core/llm/tool-text.ts): the call is run as if it had
 *   been made, with a warning (small models served without a tool-call parser write every call so;
 *   asked to call through the interface, Qwen2.5-Coder 1.5B apologised or wrote it as text again). A
 *   call that cannot be run as written (arguments that are no object, a repeated key, the tool's
 *   definition echoed back) is asked for once more; written so again, the text is the result, with
 *   another warning — never silently;
 * - the agent must call a tool first (`tool_choice: required`) and did not: an endpoint that does not
 *   enforce `tool_choice` answered in prose, so the model is told once to call one of its tools;
 * - it is empty (no text, no call, no refusal): the model is asked once for its final answer (Qwen2.5-Coder
 *   1.5B often replies with nothing after its last tool result; asked, it answers or calls a tool);
 * - it stopped at `max_tokens` (`finish_reason: length`): the model is asked to continue where it
 *   stopped, and the two texts are joined; still cut, the reply keeps its `length` finish and the
 *   workflow decides (the run ends `failed/truncated_output` unless the agent accepts cut replies).
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { toolCallInText } from '../core/llm/tool-text';

/**
 * What the follow-up requests say to the model, and the warnings they leave, so tests pin them.
 * @internal exported for tests
 */
export const REPLY_TEXTS = {
  callAsText: (tool: string) =>
    `Your reply wrote a call of the tool ${tool} as text, so the tool did not run. To use a tool, call it through ` +
    'the tool-calling interface (a function call), not in the text of your reply. If you need no tool, give your final answer.',
  // measured against Qwen2.5-Coder 1.5B (docs/semantics.md, "Agent calls")
  mustCall: (tools: readonly string[]) =>
    `You have not used your tools yet. Call one of them now (${tools.join(', ')}) through the tools interface; reply with the tool call only.`,
  // measured against Qwen2.5-Coder 1.5B (docs/semantics.md, "Agent calls")
  emptyReply: 'Your reply was empty. Give your final answer now.',
  continueCut: 'Your reply was cut off at the length limit. Continue exactly where it stopped, without repeating anything.',
  ranTextCall: (agent: string, tool: string) =>
    `agent ${agent}: the reply wrote a call of ${tool} as text instead of making it; troupe ran it as that call`,
  callAsTextWarning: (agent: string, tool: string) =>
    `agent ${agent}: the reply wrote a call of ${tool} that cannot run as written; asked once more to call it through the tools interface`,
  callAsTextAgain: (agent: string, tool: string) =>
    `agent ${agent}: the reply wrote a call of ${tool} as text again; that text is taken as its result`,
  mustCallWarning: (agent: string) =>
    `agent ${agent}: tool_choice is required but the reply called no tool (the endpoint does not enforce tool_choice); asked once to call one`,
  emptyWarning: (agent: string) => `agent ${agent}: the reply was empty; asked once for the final answer`,
  continued: (agent: string) => `agent ${agent}: the reply stopped at max_tokens (finish_reason length); asked once to continue it`,
} as const;

/** What to do with a reply that made no tool call. */
export type FollowUp =
  /** Send these messages and take the next reply instead. */
  | { ask: ChatCompletionMessageParam[] }
  /** The reply wrote this call as text: run it as if it had been made. */
  | { call: { name: string; arguments: string } };

/** The follow-ups of one activity's replies (each is asked for at most once). */
interface ReplyFollowUps {
  /**
   * What to do with a reply without tool calls, or undefined when the reply stands. `mustCall`: the
   * agent is required to call a tool and has not yet; `toolsOff`: no tool may be called now (the
   * closing call, `tool_choice: none`); `refused`: the reply is a refusal, which stands. Warnings go
   * to `warnings`.
   */
  next(
    text: string,
    finishReason: string | null | undefined,
    warnings: string[],
    when?: { mustCall?: boolean; toolsOff?: boolean; refused?: boolean },
  ): FollowUp | undefined;
  /** The final reply's text with the text of replies it continued in front. */
  text(final: string): string;
}

/** Follow-ups for `agent`, offered the tools named `offered`. */
export function replyFollowUps(agent: string, offered: readonly string[]): ReplyFollowUps {
  let reasked = false;
  let nudged = false;
  let emptyAsked = false;
  let continued = false;
  let before = '';
  const ask = (text: string, request: string): FollowUp => ({
    ask: [
      { role: 'assistant', content: text },
      { role: 'user', content: request },
    ],
  });
  return {
    next(text, finishReason, warnings, { mustCall = false, toolsOff = false, refused = false } = {}) {
      const written = toolsOff ? undefined : toolCallInText(text, offered);
      if (written?.arguments !== undefined) {
        warnings.push(REPLY_TEXTS.ranTextCall(agent, written.name));
        return { call: { name: written.name, arguments: written.arguments } };
      }
      if (written && !reasked) {
        reasked = true;
        warnings.push(REPLY_TEXTS.callAsTextWarning(agent, written.name));
        return ask(text, REPLY_TEXTS.callAsText(written.name));
      }
      if (written) warnings.push(REPLY_TEXTS.callAsTextAgain(agent, written.name));
      if (mustCall && !toolsOff && !written && !nudged && offered.length > 0) {
        nudged = true;
        warnings.push(REPLY_TEXTS.mustCallWarning(agent));
        return ask(text, REPLY_TEXTS.mustCall(offered));
      }
      if (text.trim() === '' && finishReason !== 'length' && !refused && !emptyAsked) {
        emptyAsked = true;
        warnings.push(REPLY_TEXTS.emptyWarning(agent));
        return ask(text, REPLY_TEXTS.emptyReply);
      }
      if (finishReason === 'length' && !continued) {
        continued = true;
        before += text;
        warnings.push(REPLY_TEXTS.continued(agent));
        return ask(text, REPLY_TEXTS.continueCut);
      }
      return undefined;
    },
    text: (final) => before + final,
  };
}

/**
 * Replies as real models write them (docs/semantics.md, "Agent calls"). Within one model-call
 * activity, a reply with no tool call is handled once more when:
 *
 * - the whole reply is a call of an offered tool written as text (core/llm/tool-text.ts): the call is
 *   run as if it had been made, with a warning (small models served without a tool-call parser write
 *   every call so; asked to call through the interface, Qwen2.5-Coder 1.5B apologised or wrote it as
 *   text again). A call that cannot be run as written (arguments that are no object, a repeated key,
 *   the tool's definition echoed back) is asked for once more; written so again, the text is the
 *   result, with another warning — never silently. A call amid other text, or one that stands in a
 *   message the model was given (a tool result, the task, the thread), is no call: the reply is the
 *   answer, with a warning. The model's `text_tool_calls: off` turns all of this off;
 * - the agent must call a tool first (`tool_choice: required`) and did not: an endpoint that does not
 *   enforce `tool_choice` answered in prose, so the model is told once to call one of its tools;
 * - it is empty (no text, no call, no refusal): the model is asked once for its final answer (Qwen2.5-Coder
 *   1.5B often replies with nothing after its last tool result; asked, it answers or calls a tool);
 * - it stopped at `max_tokens` (`finish_reason: length`): the model is asked to continue where it
 *   stopped, and the two texts are joined; still cut, the reply keeps its `length` finish and the
 *   workflow decides (the run ends `failed/truncated_output` unless the agent accepts cut replies).
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { readTextCall } from '../core/llm/tool-text';

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
  quotedCall: (agent: string, tool: string) =>
    `agent ${agent}: the reply quotes a call of ${tool} amid other text; a call written as text runs only when it is the whole reply, so it did not run and the reply is the answer`,
  echoedCall: (agent: string, tool: string) =>
    `agent ${agent}: the reply is a call of ${tool} that stands in a tool result or message the model was given; a quoted call never runs, so the reply is the answer`,
  mustCallWarning: (agent: string) =>
    `agent ${agent}: tool_choice is required but the reply called no tool (the endpoint does not enforce tool_choice); asked once to call one`,
  emptyWarning: (agent: string) => `agent ${agent}: the reply was empty; asked once for the final answer`,
  continued: (agent: string) => `agent ${agent}: the reply stopped at max_tokens (finish_reason length); asked once to continue it`,
} as const;

/** What to do with a reply that made no tool call. */
export type FollowUp =
  /** Send these messages and take the next reply instead. */
  | { ask: ChatCompletionMessageParam[] }
  /** The whole reply is this call written as text: run it as if it had been made. */
  | { call: { name: string; arguments: string } };

/** The texts of a request's messages that are not the model's own (system, user, tool): what it was given. */
function givenTexts(messages: readonly ChatCompletionMessageParam[]): string[] {
  return messages.flatMap((m) => {
    if (m.role === 'assistant') return [];
    if (typeof m.content === 'string') return [m.content];
    return (m.content ?? []).flatMap((part) => ('text' in part && typeof part.text === 'string' ? [part.text] : []));
  });
}

/** The follow-ups of one activity's replies (each is asked for at most once). */
interface ReplyFollowUps {
  /**
   * What to do with a reply without tool calls, or undefined when the reply stands. `mustCall`: the
   * agent is required to call a tool and has not yet; `toolsOff`: no tool may be called now (the
   * closing call, `tool_choice: none`); `refused`: the reply is a refusal, which stands; `given`: the
   * request's messages, whose non-assistant texts a call written as text must not be a quote of.
   * Warnings go to `warnings`.
   */
  next(
    text: string,
    finishReason: string | null | undefined,
    warnings: string[],
    when?: { mustCall?: boolean; toolsOff?: boolean; refused?: boolean; given?: readonly ChatCompletionMessageParam[] },
  ): FollowUp | undefined;
  /** The final reply's text with the text of replies it continued in front. */
  text(final: string): string;
}

/**
 * Follow-ups for `agent`, offered the tools named `offered`. `textCalls: false` (the model's
 * `text_tool_calls: off`): no call written as text is read, run or asked about.
 */
export function replyFollowUps(agent: string, offered: readonly string[], textCalls = true): ReplyFollowUps {
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
    next(text, finishReason, warnings, { mustCall = false, toolsOff = false, refused = false, given = [] } = {}) {
      const written = toolsOff || !textCalls ? undefined : readTextCall(text, offered, givenTexts(given));
      switch (written?.kind) {
        case 'call':
          warnings.push(REPLY_TEXTS.ranTextCall(agent, written.name));
          return { call: { name: written.name, arguments: written.arguments } };
        case 'unrunnable':
          if (!reasked) {
            reasked = true;
            warnings.push(REPLY_TEXTS.callAsTextWarning(agent, written.name));
            return ask(text, REPLY_TEXTS.callAsText(written.name));
          }
          warnings.push(REPLY_TEXTS.callAsTextAgain(agent, written.name));
          break;
        case 'quoted':
          warnings.push(REPLY_TEXTS.quotedCall(agent, written.name));
          break;
        case 'echoed':
          warnings.push(REPLY_TEXTS.echoedCall(agent, written.name));
          break;
        case undefined:
          break;
        default: {
          const never: never = written;
          return never;
        }
      }
      if (mustCall && !toolsOff && written?.kind !== 'unrunnable' && !nudged && offered.length > 0) {
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

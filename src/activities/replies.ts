/**
 * Replies as real models write them (docs/semantics.md, "Agent calls"). Within one model-call
 * activity, a reply with no tool call is asked once more when:
 *
 * - it wrote a call of an offered tool as text (core/llm/tool-text.ts): the model is told to call it
 *   through the tools interface, and a warning says so; written as text again, the text is the
 *   result, with another warning — never silently;
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
  continueCut: 'Your reply was cut off at the length limit. Continue exactly where it stopped, without repeating anything.',
  callAsTextWarning: (agent: string, tool: string) =>
    `agent ${agent}: the reply wrote a call of ${tool} as text instead of calling it; asked once more to call it through the tools interface`,
  callAsTextAgain: (agent: string, tool: string) =>
    `agent ${agent}: the reply wrote a call of ${tool} as text again; that text is taken as its result`,
  continued: (agent: string) => `agent ${agent}: the reply stopped at max_tokens (finish_reason length); asked once to continue it`,
} as const;

/** The follow-ups of one activity's replies (each is asked for at most once). */
interface ReplyFollowUps {
  /**
   * The messages to send next for a reply without tool calls, or undefined when the reply stands.
   * Warnings for what was asked go to `warnings`.
   */
  next(text: string, finishReason: string | null | undefined, warnings: string[]): ChatCompletionMessageParam[] | undefined;
  /** The final reply's text with the text of replies it continued in front. */
  text(final: string): string;
}

/** Follow-ups for `agent`, offered the tools named `offered`. */
export function replyFollowUps(agent: string, offered: readonly string[]): ReplyFollowUps {
  let reasked = false;
  let continued = false;
  let before = '';
  return {
    next(text, finishReason, warnings) {
      const tool = toolCallInText(text, offered);
      if (tool && !reasked) {
        reasked = true;
        warnings.push(REPLY_TEXTS.callAsTextWarning(agent, tool));
        return [
          { role: 'assistant', content: text },
          { role: 'user', content: REPLY_TEXTS.callAsText(tool) },
        ];
      }
      if (tool) warnings.push(REPLY_TEXTS.callAsTextAgain(agent, tool));
      if (finishReason === 'length' && !continued) {
        continued = true;
        before += text;
        warnings.push(REPLY_TEXTS.continued(agent));
        return [
          { role: 'assistant', content: text },
          { role: 'user', content: REPLY_TEXTS.continueCut },
        ];
      }
      return undefined;
    },
    text: (final) => before + final,
  };
}

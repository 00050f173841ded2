/**
 * Replies as real models write them (docs/semantics.md, "Agent calls"): the part of the decision after
 * a model turn (`next-step.ts`) that reads a reply without a tool call. Within one model-call
 * activity, such a reply is handled once more when:
 *
 * - the whole reply is a call of an offered tool written as text (`tool-text.ts`): the call is run as
 *   if it had been made, with a warning (small models served without a tool-call parser write every
 *   call so; asked to call through the interface, Qwen2.5-Coder 1.5B apologised or wrote it as text
 *   again). A call that cannot be run as written (arguments that are no object, a repeated key, the
 *   tool's definition echoed back) is asked for once more; written so again, the text is the result,
 *   with another warning — never silently. A call amid other text, or one that stands in a message
 *   the model was given (a tool result, the task, the thread), is no call: the reply is the answer,
 *   with a warning. The model's `text_tool_calls: off` turns all of this off;
 * - the agent must call a tool first (`tool_choice: required`) and did not: an endpoint that does not
 *   enforce `tool_choice` answered in prose, so the model is told once to call one of its tools;
 * - it is empty (no text, no call, no refusal): the model is asked once for its final answer
 *   (Qwen2.5-Coder 1.5B often replies with nothing after its last tool result; asked, it answers or
 *   calls a tool);
 * - it stopped at `max_tokens` (`finish_reason: length`): the model is asked to continue where it
 *   stopped, and the two texts are joined; still cut, the reply keeps its `length` finish and the
 *   workflow decides (the run ends `failed/truncated_output` unless the agent accepts cut replies).
 *
 * Pure: which follow-ups were used is plain JSON the activity keeps ({@link FollowUpsUsed}).
 */
import { readTextCall } from './tool-text';

/** What the follow-up requests say to the model, and the warnings they leave, so tests pin them. */
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

/** The follow-ups one model-call activity already asked (each at most once), and the text a continuation goes after. */
export interface FollowUpsUsed {
  reasked?: true;
  nudged?: true;
  emptyAsked?: true;
  /** The text of the replies continued so far (`finish_reason: length`), which the final text goes after. */
  continued?: string;
}

/** A reply without a tool call, as the follow-ups read it. */
export interface PlainReply {
  text: string;
  finishReason?: string | null;
  /** The reply is a refusal, which stands. */
  refused: boolean;
  /** The texts of the request's messages that are not the model's own: what it was given (read only when needed). */
  given: () => readonly string[];
}

/** When the reply came: the agent must call a tool and has not yet; no tool may be called now (the closing call). */
export interface FollowUpMoment {
  mustCall: boolean;
  toolsOff: boolean;
}

/** What becomes of a reply without a tool call; `warnings` say what was done with it, in order. */
export type FollowUp =
  /** Ask once more: send the reply and this request, and take the next reply instead. */
  | { kind: 'ask'; request: string; warnings: string[] }
  /** The whole reply is this call written as text: run it as if it had been made. */
  | { kind: 'call'; name: string; arguments: string; warnings: string[] }
  /** The reply stands (with a warning when it held a call that does not run). */
  | { kind: 'stands'; warnings: string[] };

/**
 * What becomes of a reply without a tool call from an agent offered the tools named `offered`
 * (`textCalls: false`, the model's `text_tool_calls: off`: no call written as text is read, run or
 * asked about). Records the follow-up it asks in `used`.
 */
export function followUp(
  agent: string,
  offered: readonly string[],
  textCalls: boolean,
  reply: PlainReply,
  when: FollowUpMoment,
  used: FollowUpsUsed,
): FollowUp {
  const { text, finishReason } = reply;
  const written = when.toolsOff || !textCalls ? undefined : readTextCall(text, offered, reply.given());
  const warnings: string[] = [];
  switch (written?.kind) {
    case 'call':
      return { kind: 'call', name: written.name, arguments: written.arguments, warnings: [REPLY_TEXTS.ranTextCall(agent, written.name)] };
    case 'unrunnable':
      if (!used.reasked) {
        used.reasked = true;
        return { kind: 'ask', request: REPLY_TEXTS.callAsText(written.name), warnings: [REPLY_TEXTS.callAsTextWarning(agent, written.name)] };
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
  const ask = (request: string, warning: string): FollowUp => ({ kind: 'ask', request, warnings: [...warnings, warning] });
  if (when.mustCall && !when.toolsOff && written?.kind !== 'unrunnable' && !used.nudged && offered.length > 0) {
    used.nudged = true;
    return ask(REPLY_TEXTS.mustCall(offered), REPLY_TEXTS.mustCallWarning(agent));
  }
  if (text.trim() === '' && finishReason !== 'length' && !reply.refused && !used.emptyAsked) {
    used.emptyAsked = true;
    return ask(REPLY_TEXTS.emptyReply, REPLY_TEXTS.emptyWarning(agent));
  }
  if (finishReason === 'length' && used.continued === undefined) {
    used.continued = text;
    return ask(REPLY_TEXTS.continueCut, REPLY_TEXTS.continued(agent));
  }
  return { kind: 'stands', warnings };
}

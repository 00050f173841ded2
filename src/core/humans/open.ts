/**
 * Asking a human (docs/semantics.md, "Humans in the loop"): the one place a run opens a request, for
 * every kind — the `signal` tool's `need_approval`, `need_clarification` and `blocked`, a transfer to
 * `user`, `approval.before_exit`, and a call of a tool `approval.tools` names. What each request says
 * (its summary and payload), what a gate's digest covers and which agent result it holds back are
 * decided here; the request goes into the book (`requests.ts`) and a decision that arrived before it
 * is applied at once (`decisions.ts`). Pure: time comes in.
 */
import type { RunState } from '../state/state';
import { brief } from '../text/format';
import { openHumanRequest } from './decisions';
import { REQUEST_SIGNAL_KINDS, type HumanRequest, type RequestToOpen } from './requests';
import { HUMAN_TEXTS } from './texts';

/** What a run asks a human. */
export type HumanAsk =
  /** An agent's `signal` tool call of a type that asks a human (`need_approval`, …): its result is held back until the decision. */
  | { kind: 'signal'; agent: string; type: string; payload?: unknown; summary?: string; held: Held }
  /** A transfer to `user` (docs/teams.md, "Handoffs"): the agent's result is held back until the answer. */
  | { kind: 'handoff'; agent: string; message?: string; held: Held }
  /** `approval.before_exit`: the final text of the final agents, which the gate shows whole. */
  | { kind: 'before_exit'; agents: string[]; text: string }
  /** A gated tool call: the arguments exactly as the tool will get them (`asText`: the model wrote the call as text). */
  | { kind: 'tool_call'; agent: string; tool: string; arguments: string; asText: boolean };

/** An agent's result held back from routing until a human decides. */
type Held = NonNullable<HumanRequest['held']>;

/** Characters of the final text a `before_exit` request's summary shows (its digest covers the whole text). */
const BEFORE_EXIT_PREVIEW_CHARS = 300;

/** Open the request `ask` makes, at workflow time `now`. */
export function askHuman(state: RunState, ask: HumanAsk, now: number): HumanRequest {
  return openHumanRequest(state, requestOf(ask, now));
}

/** The request an ask opens: what it says and shows, and what it holds back. */
function requestOf(ask: HumanAsk, now: number): RequestToOpen {
  switch (ask.kind) {
    case 'signal':
      return {
        kind: REQUEST_SIGNAL_KINDS[ask.type],
        agent: ask.agent,
        summary: ask.summary ?? summarizePayload(ask.payload) ?? HUMAN_TEXTS.asks.signal(ask.agent, ask.type),
        payload: ask.payload,
        held: ask.held,
        now,
      };
    case 'handoff':
      return {
        kind: 'handoff',
        agent: ask.agent,
        summary: ask.message ?? HUMAN_TEXTS.asks.handoff(ask.agent),
        ...(ask.message ? { payload: { message: ask.message } } : {}),
        held: ask.held,
        now,
      };
    case 'before_exit': {
      const agents = ask.agents.join(',');
      // its digest covers the whole final text, as the RunResult will carry it
      return {
        kind: 'before_exit',
        agent: agents,
        summary: HUMAN_TEXTS.asks.beforeExit(agents, ask.text.slice(0, BEFORE_EXIT_PREVIEW_CHARS)),
        gate: { tool: '', text: ask.text },
        now,
      };
    }
    case 'tool_call': {
      // the digest covers the arguments the tool will get: only a decision naming it decides
      const summaryOf = ask.asText ? HUMAN_TEXTS.asks.toolCallAsText : HUMAN_TEXTS.asks.toolCall;
      return {
        kind: 'tool_call',
        agent: ask.agent,
        summary: summaryOf(ask.agent, ask.tool, brief(ask.arguments)),
        payload: { tool: ask.tool, arguments: ask.arguments, ...(ask.asText ? { writtenAsText: true } : {}) },
        gate: { tool: ask.tool, text: ask.arguments },
        now,
      };
    }
    default: {
      const never: never = ask;
      throw new Error(`askHuman: unknown ask ${JSON.stringify(never)}`);
    }
  }
}

/** A one-line summary from a signal payload's usual fields. */
function summarizePayload(payload: unknown): string | undefined {
  if (payload && typeof payload === 'object') {
    const p = payload as Record<string, unknown>;
    for (const key of ['summary', 'question', 'message', 'reason', 'text']) {
      if (typeof p[key] === 'string' && p[key]) return p[key] as string;
    }
  }
  return undefined;
}

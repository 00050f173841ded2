/**
 * A gated tool call's approval as a state of the round machine (docs/semantics.md, "Gated calls:
 * what a human approves is what runs"). The wait happens inside the wave's dispatch, beside its other
 * calls, but the machine sees it: while a call waits, the wave's phase lists its request
 * (`Phase.waiting`), as `exit_approval` names the request of `before_exit`. The request opens through
 * the one opener (`askHuman`, `core/humans/decisions.ts`) with the arguments exactly as the tool will get them; the
 * dispatch waits at the one human gate (`workflows/human-gate.ts`); then the decision is taken here.
 * Pure: time comes in.
 */
import { askHuman } from '../humans/decisions';
import { takeDecided } from '../humans/requests';
import { readToolArguments, TOOL_ARGUMENT_LIMITS, TOOL_ARGUMENT_TEXTS } from '../llm/tool-arguments';
import { TOOL_CALL_TEXTS } from '../llm/tool-calls';
import { warn } from '../state/state';
import { brief } from '../text/format';
import { utf8ByteLength } from '../text/utf8';
import type { Machine } from './step';
import type { Phase } from './types';

/** A gated call as the model made it. */
export interface GatedCall {
  agent: string;
  /** The tool's name in the role file (`files.write_file`), which the human sees. */
  tool: string;
  /** The name the model called it by, for the model's error texts. */
  name: string;
  /** The arguments as the model wrote them. */
  arguments: string;
  /** The model wrote the call as text in its reply: the request says so. */
  asText: boolean;
}

/**
 * A gate opened, with the arguments the human will see and the tool will get; or the call was not
 * offered for approval (arguments that cannot be read strictly, or too large to be shown whole), and
 * `answer` is what the model reads instead.
 */
export type ToolGate = { ok: true; requestId: string; arguments: string } | { ok: false; answer: string };

/** What the human decided about a gated call; `stopped`: `stop` ended the wait first. */
export type ToolVerdict = { kind: 'approve' } | { kind: 'reject'; reason: string } | { kind: 'stopped' };

/** The wave's phase, which a tool's approval happens in. */
function wavePhase(m: Machine): Extract<Phase, { at: 'wave' }> {
  if (m.phase.at !== 'wave') throw new Error(`tool approval in phase ${m.phase.at}`);
  return m.phase;
}

/**
 * Open the gate of `call` at workflow time `now`: its arguments are read strictly and must be small
 * enough to be shown whole (`core/llm/tool-arguments.ts`); the wave's phase then waits on its request.
 */
export function openToolApproval(m: Machine, call: GatedCall, now: number): ToolGate {
  const read = readToolArguments(call.arguments);
  const refused = !read.ok
    ? TOOL_ARGUMENT_TEXTS.invalid(call.name, [read.error])
    : utf8ByteLength(read.json) > TOOL_ARGUMENT_LIMITS.approvalBytes
      ? TOOL_ARGUMENT_TEXTS.tooLargeToApprove(call.tool, utf8ByteLength(read.json))
      : undefined;
  if (!read.ok || refused !== undefined) {
    const answer = refused ?? '';
    warn(m.state, TOOL_CALL_TEXTS.notOffered(call.agent, call.tool, brief(answer)));
    return { ok: false, answer };
  }
  const phase = wavePhase(m);
  const request = askHuman(m.state, { kind: 'tool_call', agent: call.agent, tool: call.tool, arguments: read.json, asText: call.asText }, now);
  phase.waiting = [...(phase.waiting ?? []), request.id];
  return { ok: true, requestId: request.id, arguments: read.json };
}

/** The wait on `requestId` is over (decided, `stop`, or the dispatch cancelled): the wave no longer waits on it, and its decision is taken. */
export function closeToolApproval(m: Machine, requestId: string): ToolVerdict {
  // never throws: it runs on the way out of a cancelled wait too
  if (m.phase.at === 'wave') {
    const waiting = (m.phase.waiting ?? []).filter((id) => id !== requestId);
    if (waiting.length > 0) m.phase.waiting = waiting;
    else delete m.phase.waiting;
  }
  const [decided] = takeDecided(m.state, (r) => r.id === requestId);
  if (!decided?.decision) return { kind: 'stopped' };
  return decided.decision.kind === 'reject' ? { kind: 'reject', reason: decided.decision.text ?? '' } : { kind: 'approve' };
}

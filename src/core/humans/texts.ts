/**
 * Every text of the humans room (what a request says, ignored payloads, decisions that match no request), in one place so tests pin them.
 */
import { clip } from '../config/limits';

export const HUMAN_TEXTS = {
  /** The summary each kind of request opens with (`open.ts`), as `status`, the CLI and the Web UI show it. */
  asks: {
    signal: (agent: string, type: string) => `${agent} asked for ${type.replace(/_/g, ' ')}`,
    handoff: (agent: string) => `${agent} handed off to you`,
    beforeExit: (agents: string, preview: string) => `approve the final result of ${agents}: ${preview}`,
    toolCall: (agent: string, tool: string, args: string) => `${agent} wants to call ${tool} ${args}`,
    /** A call the model wrote as text in its reply instead of making it. */
    toolCallAsText: (agent: string, tool: string, args: string) =>
      `${agent} wants to call ${tool} ${args} (written as text in its reply, not made through the tools interface)`,
  },
  /** Texts of payload warnings, so tests can pin them. */
  signals: {
    malformed: (name: string, issue: string) => `ignored malformed ${name} signal: ${issue}`,
    unknownSignal: (name: string) => `ignored unknown signal ${clip(name)}`,
  },
  /** Texts of decisions that match nothing, so tests can pin them. */
  requests: {
    noneToDecide: (d: string) => `ignored ${d} signal: no request is pending`,
    notPending: (d: string, id: string, pending: string[]) =>
      `ignored ${d} signal: request ${clip(id)} is not pending (pending: ${pending.length ? pending.join(', ') : 'none'})`,
    answerToGate: (id: string, kind: string) =>
      `ignored answer signal: request ${id} (${kind}) is decided only by approve or reject; an answer is not an approval`,
    neverOpened: (kept: Array<{ requestId: string; kind: string }>) =>
      `ignored ${kept.map((k) => `${k.kind} signal for ${k.requestId}`).join(', ')}: the run ended before that request opened`,
    ambiguous: (d: string, pending: string[]) =>
      `ignored ${d} signal: ${pending.length} requests are pending (${pending.join(', ')}); name one with requestId (--request)`,
    /** Why a decision on a gate that names no digest is refused (its decision record's `refused`). */
    noDigest: 'it names no digest: a decision on a gate names the digest of what the request shows (troupe status shows it; troupe approve and troupe reject send it)',
    /** Why a decision on a gate that names another digest is refused. */
    otherDigest: (named: string) => `it names digest ${clip(named)}, which is not the digest of what the request shows`,
    /** The warning of a refused decision: the request stays open. */
    refused: (d: string, id: string, kind: string, why: string) => `refused ${d} signal for request ${id} (${kind}): ${why}; the request stays open`,
  },
} as const;

/** Request kinds an agent asked a question with: `troupe answer` is their first command. */
export const ANSWERED_KINDS: readonly string[] = ['clarification', 'blocked', 'handoff'];

/**
 * The commands that decide a pending request: `answer` for questions an agent asked (clarification,
 * blocked), then `approve` and `reject`. Shown by `troupe run`, `troupe status` and the Temporal UI.
 */
export function answerCommands(workflowId: string, r: { id: string; kind: string }): string[] {
  const commands: string[] = [];
  if (ANSWERED_KINDS.includes(r.kind)) commands.push(`troupe answer ${workflowId} "<your answer>" --request ${r.id}`);
  commands.push(`troupe approve ${workflowId} --request ${r.id}`);
  commands.push(`troupe reject ${workflowId} --request ${r.id} --reason "..."`);
  return commands;
}

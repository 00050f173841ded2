/**
 * Every text of the humans room (what a request says, ignored payloads, decisions that match no
 * request, the answers of decisions and what follows them), in one place so tests pin them.
 */
import { clip } from '../config/limits';

const list = (ids: string[]) => (ids.length ? ids.join(', ') : 'none');

/**
 * Why a decision decides nothing, in a sentence: the reason of a refused Update (what `troupe approve`
 * prints) and of a decision signal's warning.
 */
const REASONS = {
  noneToDecide: 'no request is pending',
  notPending: (id: string, pending: string[]) => `request ${clip(id)} is not pending (pending: ${list(pending)})`,
  decided: (id: string, pending: string[]) => `request ${clip(id)} is not pending: it was decided already (pending: ${list(pending)})`,
  notOpenYet: (id: string, pending: string[]) => `request ${clip(id)} is not pending: it is not open yet (pending: ${list(pending)})`,
  ambiguous: (pending: string[]) => `${pending.length} requests are pending (${pending.join(', ')}); name one with requestId (--request)`,
  answerToGate: (id: string, kind: string) => `request ${id} (${kind}) is decided only by approve or reject; an answer is not an approval`,
  malformed: (issue: string) => `malformed payload: ${issue}`,
  ended: (status: string) => `the run has ended (${status.toLowerCase()}): nothing is left to decide`,
} as const;

export const HUMAN_TEXTS = {
  /** The summary each kind of request opens with (`askHuman` in `decisions.ts`), as `status`, the CLI and the Web UI show it. */
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
  /** Why a decision decides nothing (see {@link REASONS}). */
  reasons: REASONS,
  /** Texts of decision signals that match nothing, so tests can pin them. */
  requests: {
    /** The warning of a decision signal that decides nothing, with the reason. */
    ignored: (d: string, reason: string) => `ignored ${d} signal: ${reason}`,
    noneToDecide: (d: string) => `ignored ${d} signal: ${REASONS.noneToDecide}`,
    notPending: (d: string, id: string, pending: string[]) => `ignored ${d} signal: ${REASONS.notPending(id, pending)}`,
    answerToGate: (id: string, kind: string) => `ignored answer signal: ${REASONS.answerToGate(id, kind)}`,
    neverOpened: (kept: Array<{ requestId: string; kind: string }>) =>
      `ignored ${kept.map((k) => `${k.kind} signal for ${k.requestId}`).join(', ')}: the run ended before that request opened`,
    ambiguous: (d: string, pending: string[]) => `ignored ${d} signal: ${REASONS.ambiguous(pending)}`,
    /** Why a decision on a gate that names no digest is refused (its decision record's `refused`). */
    noDigest: 'it names no digest: a decision on a gate names the digest of what the request shows (troupe status shows it; troupe approve and troupe reject send it)',
    /** Why a decision on a gate that names another digest is refused. */
    otherDigest: (named: string) => `it names digest ${clip(named)}, which is not the digest of what the request shows`,
    /** The warning of a refused decision: the request stays open. */
    refused: (d: string, id: string, kind: string, why: string) => `refused ${d} signal for request ${id} (${kind}): ${why}; the request stays open`,
  },
  /**
   * What the workflow answers a decision it applied, and what a refused one's sender is told: the
   * answer of the `approve`, `reject` and `answer` Updates (`troupe approve` prints it).
   */
  answers: {
    applied: (id: string, next: string) => `applied to ${id}: ${next}`,
    refused: (reason: string) => `refused: ${reason}`,
    /** A run whose worker predates decisions as Updates: the decision went as a signal. */
    sent: (d: string, id: string | undefined) =>
      `sent ${d}${id ? ` for ${id}` : ''} as a signal: the run's worker predates decisions as Updates; troupe status shows whether it was applied`,
  },
  /** What happens next, once a decision is applied to a request of each kind. */
  next: {
    toolRuns: (agent: string, tool: string) => `${agent}'s call of ${tool} runs`,
    toolRefused: (agent: string, tool: string) => `${agent}'s call of ${tool} does not run; ${agent} is told the reason`,
    runEnds: 'the run ends with this result',
    newRound: (agents: string) => `a new round starts at ${agents} with the reason`,
    resultGoesOn: (agent: string, withText: boolean) => `${agent}'s result goes on${withText ? `, and ${agent} gets the text in its next input` : ''}`,
    agentAgain: (agent: string) => `${agent} runs again, alone, with the reason`,
    handoffBack: (agent: string) => `${agent} works again, with the answer`,
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

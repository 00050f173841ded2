/**
 * What `troupe chat` reads and writes (docs/cli.md, "troupe chat"): a typed line at its prompt (a
 * task, `/exit`, `/help`), a typed decision on a run's request (a gate: `y [note]` or `n <reason>`;
 * a question: the answer, or `/reject <reason>`), the request as the chat shows it, and its texts.
 * Pure: the driver (`chat.ts`) owns the terminal.
 */
import type { RequestDecision } from '../client/human-decisions';
import { ANSWERED_KINDS } from '../core/humans/texts';
import type { PendingRequest } from '../core/humans/requests';
import { gateLines } from './run-texts';

/** A line typed at the chat's prompt. */
export type ChatLine = { kind: 'task'; text: string } | { kind: 'empty' } | { kind: 'exit' } | { kind: 'help' } | { kind: 'unknown'; command: string };

/** A line typed at a request: the decision it makes, or what to type instead. */
export type TypedDecision = RequestDecision | { kind: 'again'; hint: string };

/** The chat's commands: a line that is one word after a slash (`/etc/hosts is gone` is a task). */
const COMMAND = /^\/([A-Za-z]+)$/;

/** Read a line typed at the prompt. */
export function parseChatLine(typed: string): ChatLine {
  const text = typed.trim();
  if (!text) return { kind: 'empty' };
  const command = COMMAND.exec(text)?.[1].toLowerCase();
  if (command === undefined) return { kind: 'task', text };
  if (command === 'exit' || command === 'quit') return { kind: 'exit' };
  if (command === 'help') return { kind: 'help' };
  return { kind: 'unknown', command };
}

/**
 * Whether a request is decided by a yes or a no (a gate, or an agent's `need_approval`) rather than
 * answered in words (a question: `need_clarification`, `blocked`, a transfer to the user).
 */
export function decidedByYesOrNo(r: Pick<PendingRequest, 'kind'>): boolean {
  return !ANSWERED_KINDS.includes(r.kind);
}

/** Read a line typed at request `r`: `y [note]` / `n <reason>` for a yes-or-no, else the answer or `/reject <reason>`. */
export function parseDecision(r: Pick<PendingRequest, 'kind'>, typed: string): TypedDecision {
  const text = typed.trim();
  if (decidedByYesOrNo(r)) {
    const yes = /^(?:y|yes)(?:\s+([\s\S]*))?$/i.exec(text);
    if (yes) return { kind: 'approve', ...(yes[1] ? { note: yes[1] } : {}) };
    const no = /^(?:n|no)(?:\s+([\s\S]*))?$/i.exec(text);
    if (no) return no[1] ? { kind: 'reject', reason: no[1] } : { kind: 'again', hint: CHAT_TEXTS.needReason };
    return { kind: 'again', hint: CHAT_TEXTS.yesOrNo };
  }
  const reject = /^\/reject(?:\s+([\s\S]*))?$/i.exec(text);
  if (reject) return reject[1] ? { kind: 'reject', reason: reject[1] } : { kind: 'again', hint: CHAT_TEXTS.needReason };
  return text ? { kind: 'answer', text } : { kind: 'again', hint: CHAT_TEXTS.emptyAnswer };
}

/**
 * Request `r` as the chat asks it: who asks and what, then, on a gate, the tool and every character
 * of the arguments it will receive and the digest the decision names ({@link gateLines}), folded at
 * `width`. Model text is quoted behind `│`, so it cannot print a line that looks like the chat's own.
 */
export function requestLines(r: PendingRequest, width: number): string[] {
  const gate = gateLines(r, width);
  const who = r.agent ?? CHAT_TEXTS.theRun;
  // a gated call's summary repeats what the gate shows in full
  const summary = r.kind === 'tool_call' && gate.length > 0 ? [] : r.summary.split(/\r\n?|\n/).map(CHAT_TEXTS.quoted);
  const head = decidedByYesOrNo(r) ? CHAT_TEXTS.waitsForYou(who, r.id, r.kind) : CHAT_TEXTS.asks(who, r.id);
  return [head, ...summary, ...gate.map((l) => `  ${l}`)];
}

/** The prompt a request is asked with. */
export function requestPrompt(r: Pick<PendingRequest, 'kind'>): string {
  return decidedByYesOrNo(r) ? CHAT_TEXTS.yesOrNoPrompt : CHAT_TEXTS.answerPrompt;
}

export const CHAT_TEXTS = {
  opening: (graph: string, agents: readonly string[]) => `troupe chat · ${graph} (${agents.join(', ')})`,
  keys: 'each line is a task for the team · /exit or Ctrl+D ends the chat · Ctrl+C stops a run · /help',
  /** With `--continue`: what the first line continues. */
  continuing: (id: string, thread: string) => `the first line continues run ${id} (thread ${thread})`,
  prompt: 'you> ',
  /** A run the chat started: the first of a thread, or one that continues the run before it. */
  started: (id: string, from?: string) => (from === undefined ? `run ${id} starts thread ${id}` : `run ${id} continues ${from}`),
  help: [
    'Type a task and press Enter: the team runs it, going on from the run before (the first line starts a thread).',
    'When the run asks you, answer at the prompt: a gate (a tool call to approve, a final result) takes',
    '  y [note] to approve or n <reason> to reject; a question takes your answer, or /reject <reason>.',
    'Ctrl+C stops the run after the work in flight (cancelled/user_stop); again, it cancels it now.',
    '/exit or Ctrl+D ends the chat; its runs stay in history (troupe list --thread T).',
  ].join('\n'),
  unknownCommand: (command: string) => `unknown command /${command}: /exit ends the chat, /help says more`,
  /** Ctrl+C at the prompt, with no run going. */
  atPrompt: '(no run to stop: /exit or Ctrl+D ends the chat)',
  theRun: 'the run',
  asks: (who: string, id: string) => `✋ ${who} asks you (${id}):`,
  waitsForYou: (who: string, id: string, kind: string) => `✋ ${who} waits for your decision (${id}, ${kind}):`,
  quoted: (line: string) => `  │ ${line}`,
  yesOrNoPrompt: 'y [note] to approve, n <reason> to reject> ',
  answerPrompt: 'answer (or /reject <reason>)> ',
  needReason: 'say why: the agent gets the reason (n <reason>, or /reject <reason>)',
  yesOrNo: 'type y to approve (y <note> adds a note) or n <reason> to reject',
  emptyAnswer: 'type an answer, or /reject <reason>',
  stopReason: 'Ctrl+C in troupe chat',
  stopping: (id: string) => `stopping ${id} after the work in flight; Ctrl+C again cancels it now`,
  cancelling: (id: string) => `cancelling ${id} now; Ctrl+C again leaves the chat`,
  couldNot: (what: 'stop' | 'cancel', id: string, message: string) => `could not ${what} ${id}: ${message}`,
  left: (id: string) => `left the chat while ${id} was still ending; see it with: troupe status ${id}`,
  closing: (thread: string | undefined) =>
    thread === undefined ? 'chat ended; no run was started' : `chat ended; its runs stay in history: troupe list --thread ${thread}`,
} as const;

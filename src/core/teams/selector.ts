/**
 * The speaker selection of a `selector` team (AutoGen SelectorGroupChat; docs/teams.md, "Selector teams"):
 * the prompt it renders, how it reads the model's reply, the feedback it sends back, and the turn's
 * fallback. Pure and deterministic: the `selectSpeaker` activity reads replies with it, and the
 * workflow renders prompts and falls back with it.
 */

/** A participant as `{roles}` lists it. */
export interface SelectorRole {
  name: string;
  description: string;
}

/** One message of the team's thread as `{history}` shows it. */
export interface SelectorHistoryEntry {
  agent: string;
  text: string;
}

/** What the template variables are filled with. */
export interface SelectorPromptParts {
  /** Every participant, in list order (AutoGen lists all of them, not only the candidates). */
  roles: SelectorRole[];
  /** The candidate names, in list order. */
  participants: string[];
  /** The thread, oldest first. */
  history: SelectorHistoryEntry[];
}

/** The names a reply is read against. */
export interface SelectionContext {
  /** Every participant: a mention of one that is not a candidate gets feedback, never a turn. */
  participants: readonly string[];
  /** The names the model may choose. */
  candidates: readonly string[];
  /** The previous speaker; naming it while it is not a candidate is a banned repeat. */
  previous?: string;
}

/** A reply read: the speaker, or the feedback to send back. */
export type Selection = { ok: true; speaker: string } | { ok: false; feedback: string };

/** A name the reply mentions, and how often. */
export interface Mention {
  name: string;
  count: number;
}

/**
 * Characters of `{history}`: the newest messages that fit, older ones counted in one line. 16 KiB
 * keeps the prompt of a long thread within a small model's context (the selector needs the recent
 * turns, not the whole run).
 */
export const SELECTOR_HISTORY_CHARS = 16 * 1024;

/** AutoGen's default selector prompt (`selector_prompt`), word for word. */
export const DEFAULT_SELECTOR_PROMPT =
  'You are in a role play game. The following roles are available:\n{roles}.\n' +
  'Read the following conversation. Then select the next role from {participants} to play. Only return the role.\n\n' +
  '{history}\n\n' +
  'Read the above conversation. Then select the next role from {participants} to play. Only return the role.\n';

/** A list of names as the prompt and the feedback show it: Python's `str(list)`, as AutoGen renders it. */
function nameList(names: readonly string[]): string {
  return `[${names.map((n) => `'${n.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ')}]`;
}

/** Every text the selector sends to the model or to the user, in one place so tests pin them. */
export const SELECTOR_TEXTS = {
  /** The candidates as `{participants}` and the feedback show them. */
  names: nameList,
  /**
   * The user message after the rendered prompt (the prompt is the system message). Naming who just
   * spoke cut Qwen2.5-Coder 1.5B's invalid first replies from 7–9 in 100 to 3, mostly repeats of
   * the previous speaker (BENCHMARKS.md, "Selector prompt"); some models answer only a user turn.
   */
  ask: (previous: string | undefined, candidates: readonly string[]) =>
    `${previous !== undefined ? `${previous} just spoke. ` : ''}Which role should act next to move the task forward? ` +
    `Reply with only the role name, one of ${nameList(candidates)}.`,
  /** Feedback: the reply names no participant (AutoGen's text). */
  noName: (candidates: readonly string[]) => `No valid name was mentioned. Please select from: ${nameList(candidates)}.`,
  /** Feedback: the reply names several participants (AutoGen's text). */
  several: (candidates: readonly string[]) =>
    `Expected exactly one name to be mentioned. Please select only one from: ${nameList(candidates)}.`,
  /** Feedback: the reply names the previous speaker, and repeats are not allowed (AutoGen's text). */
  repeated: (candidates: readonly string[]) =>
    `Repeated speaker is not allowed, please select a different name from: ${nameList(candidates)}.`,
  /** Feedback: the reply names a participant that is not a candidate (AutoGen would accept it). */
  notCandidate: (name: string, candidates: readonly string[]) =>
    `${name} cannot be selected for this turn. Please select from: ${nameList(candidates)}.`,
  /** The first line of a `{history}` that left older messages out. */
  historyOmitted: (n: number) => `(${n} earlier ${n === 1 ? 'message' : 'messages'} left out)`,
  /** The warning of a turn whose selector call failed. */
  failed: (error: string, speaker: string) => `the selector failed (${error}); ${speaker} speaks next (list order)`,
  /** The warning of a turn that fell back after the selector named no valid candidate. */
  fallback: (attempts: number, speaker: string) =>
    `the selector named no valid speaker in ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}; ${speaker} speaks next (list order)`,
} as const;

/** The marker before the kept end of a message too long for `{history}` on its own. */
const CUT_MARKER = '…';

/** The longest run of backticks in `text`. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return longest;
}

/**
 * One message of `{history}`: its speaker's name, then its text in a fenced block one backtick longer
 * than any run of backticks in it (at least three). No line of the text can close the fence, so a
 * line such as `reviewer: APPROVED` in a planner's message stays inside the planner's block and
 * never reads as the reviewer's turn.
 */
function historyBlock(agent: string, text: string): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${agent}:\n${fence}\n${text}\n${fence}`;
}

/** `{roles}`: one `name: description` line per participant, its whitespace collapsed. */
function renderRoles(roles: readonly SelectorRole[]): string {
  return roles.map((r) => `${r.name}: ${r.description}`.replace(/\s+/g, ' ').trim()).join('\n');
}

/** The last `chars` characters of `text`, never starting inside a surrogate pair. */
function tail(text: string, chars: number): string {
  let start = Math.max(0, text.length - chars);
  const c = text.charCodeAt(start);
  if (start > 0 && c >= 0xdc00 && c <= 0xdfff) start += 1;
  return text.slice(start);
}

/**
 * `{history}`: AutoGen's `agent:` blocks separated by blank lines, each message's text fenced
 * ({@link historyBlock}) so that no agent can write another's turn; the newest that fit in `budget`
 * characters; a newest message longer than the budget keeps its end (where a turn usually says who
 * should go next).
 */
export function renderHistory(history: readonly SelectorHistoryEntry[], budget: number = SELECTOR_HISTORY_CHARS): string {
  const blocks: string[] = [];
  let used = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const { agent } = history[i]!;
    // blank lines around a message are no part of it (its first line keeps its indentation)
    const text = history[i]!.text.replace(/^\s*\n/, '').trimEnd();
    const block = historyBlock(agent, text);
    const cost = block.length + (blocks.length > 0 ? 2 : 0);
    if (used + cost > budget) {
      // the newest message alone is too long: its end, and every older one left out
      const cut = blocks.length === 0;
      if (cut) {
        // the whole text's fence is at least the kept end's: the block fits in the budget
        const frame = block.length - text.length + CUT_MARKER.length;
        blocks.push(historyBlock(agent, `${CUT_MARKER}${tail(text, Math.max(0, budget - frame))}`));
      }
      const omitted = cut ? i : i + 1;
      if (omitted > 0) blocks.push(SELECTOR_TEXTS.historyOmitted(omitted));
      break;
    }
    blocks.push(block);
    used += cost;
  }
  return blocks.reverse().join('\n\n');
}

/**
 * The selector prompt: `{roles}`, `{participants}` and `{history}` filled in, in one pass over the
 * template (a message that contains `{roles}` is not expanded again); other `{...}` stay as written.
 */
export function renderSelectorPrompt(template: string, parts: SelectorPromptParts): string {
  const values: Record<string, () => string> = {
    roles: () => renderRoles(parts.roles),
    participants: () => nameList(parts.participants),
    history: () => renderHistory(parts.history),
  };
  const cache = new Map<string, string>();
  return template.replace(/\{(roles|participants|history)\}/g, (_m, key: string) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = values[key]!();
      cache.set(key, value);
    }
    return value;
  });
}

/** A character of a word (Python's Unicode `\w`): a mention may neither start nor end next to one. */
const WORD = '[\\p{L}\\p{N}_]';

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The forms a name is mentioned in: as written, `_` as a space, `_` escaped as `\_` (markdown). */
function mentionPattern(name: string): RegExp {
  const forms = [...new Set([name, name.replace(/_/g, ' '), name.replace(/_/g, '\\_')])];
  return new RegExp(`(?<!${WORD})(?:${forms.map(escapeRegex).join('|')})(?!${WORD})`, 'gu');
}

/**
 * The participants a reply mentions, in `names` order, with their counts: AutoGen's
 * `_mentioned_agents` (case-sensitive, word-bounded; `_` in a name also matches a space or `\_`).
 * One refinement: a mention inside a longer name's mention is not counted, so `code-reviewer` does
 * not also mention `reviewer` (AutoGen's `\W` boundary splits names at `-`, and troupe's names use it).
 */
export function mentionedAgents(reply: string, names: readonly string[]): Mention[] {
  const spans: Array<{ name: string; start: number; end: number }> = [];
  for (const name of new Set(names)) {
    if (name === '') continue;
    for (const m of reply.matchAll(mentionPattern(name))) spans.push({ name, start: m.index, end: m.index + m[0].length });
  }
  const counts = new Map<string, number>();
  for (const s of spans) {
    const inside = spans.some((o) => o.end - o.start > s.end - s.start && o.start <= s.start && o.end >= s.end);
    if (!inside) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
  }
  return [...new Set(names)].filter((n) => counts.has(n)).map((name) => ({ name, count: counts.get(name)! }));
}

/** Quotes, brackets, markdown and punctuation around a reply that is just a name. */
const WRAPPING = /^[\s"'`*.,:;!?()[\]{}<>]+|[\s"'`*.,:;!?()[\]{}<>]+$/g;

/**
 * Reads the model's reply: a reply that is exactly one candidate (quotes, backticks and punctuation
 * around it ignored) is that candidate; otherwise exactly one participant must be mentioned, and it
 * must be a candidate. Every other reply gets AutoGen's feedback for its case (no name, several
 * names, a banned repeat), or, for a participant that is not a candidate, feedback listing the
 * candidates (AutoGen accepts it).
 */
export function readSelection(reply: string, ctx: SelectionContext): Selection {
  const bare = reply.replace(WRAPPING, '');
  if (ctx.candidates.includes(bare)) return { ok: true, speaker: bare };
  const mentions = mentionedAgents(reply, ctx.participants);
  if (mentions.length === 0) return { ok: false, feedback: SELECTOR_TEXTS.noName(ctx.candidates) };
  if (mentions.length > 1) return { ok: false, feedback: SELECTOR_TEXTS.several(ctx.candidates) };
  const name = mentions[0]!.name;
  if (ctx.candidates.includes(name)) return { ok: true, speaker: name };
  if (name === ctx.previous) return { ok: false, feedback: SELECTOR_TEXTS.repeated(ctx.candidates) };
  return { ok: false, feedback: SELECTOR_TEXTS.notCandidate(name, ctx.candidates) };
}

/** The names the selector may choose: every participant, less the previous speaker unless repeats are allowed. */
export function selectorCandidates(participants: readonly string[], previous: string | undefined, allowRepeated: boolean): string[] {
  return allowRepeated || previous === undefined ? [...participants] : participants.filter((p) => p !== previous);
}

/**
 * The speaker of a turn whose selector named no valid candidate: the participant after the previous
 * speaker in list order (cyclic), never the previous one again unless repeats are allowed (only a
 * one-agent list can come back to it); the first participant when there is no previous speaker.
 * AutoGen falls back to the previous speaker instead, even when repeats are banned.
 */
export function fallbackSpeaker(participants: readonly string[], previous: string | undefined, allowRepeated: boolean): string {
  if (participants.length === 0) throw new RangeError('fallbackSpeaker: no participants');
  const at = previous === undefined ? -1 : participants.indexOf(previous);
  if (at < 0) return participants[0]!;
  for (let step = 1; step <= participants.length; step++) {
    const next = participants[(at + step) % participants.length]!;
    if (next !== previous || allowRepeated) return next;
  }
  return participants[0]!;
}

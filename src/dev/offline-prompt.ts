/**
 * How the offline model reads a troupe agent prompt (`src/core/prompts/build.ts`): the role's
 * instructions, the `<collaboration>` block (a team's members, the stop words of `text_mention`
 * conditions), the task, the shared thread, the agent's own earlier results and this turn's notes.
 * It looks for the headings troupe writes (`PROMPT_TEXTS`), so prompt and reader cannot drift apart.
 */
import { PROMPT_TEXTS } from '../core/prompts/build';

/** One entry of the shared thread. */
interface ThreadEntry {
  agent: string;
  /** Marked `(you)`: the agent that is asked wrote it. */
  self: boolean;
  text: string;
  /** A transfer, a question to the user or a human's answer; absent for an agent's output. */
  kind?: 'handoff' | 'question' | 'answer';
}

/** A note of this turn that the offline model acts on. */
interface TurnNote {
  kind: 'handoff' | 'human_answer' | 'other';
  /** The agent that handed off, or `human`. */
  from?: string;
  text: string;
}

/** What the offline model reads from one agent prompt. */
export interface AgentPromptView {
  /** The system prompt before `<collaboration>`: the role's own instructions. */
  instructions: string;
  /** The other members of a swarm or selector team, in list order; empty outside teams. */
  members: string[];
  /** A swarm: the agent keeps the turn until it transfers. */
  swarm: boolean;
  /** The texts `text_mention` stop conditions wait for, as the stop lines quote them. */
  stopWords: string[];
  task: string;
  /** The shared thread as shown (thread context), oldest first. */
  thread: ThreadEntry[];
  /** The prompt shows a result of this agent: a thread entry marked `(you)`, or its previous results. */
  spoke: boolean;
  /** Its latest result that the prompt shows, if any. */
  ownLatest?: string;
  /** A human's answer to this agent's question: the thread's last entry, or (inbox) a note. */
  answer?: string;
  notes: TurnNote[];
}

const T = PROMPT_TEXTS;
const SENTINEL = '\u0000';
/** The members line around its names: `You share one conversation with: ` and `.`. */
const [MEMBERS_PREFIX, MEMBERS_SUFFIX] = T.teamMembers(SENTINEL).split(SENTINEL) as [string, string];
/** A stop line's quoted text: `"TERMINATE" mentioned` (the `text_mention` condition's description). */
const MENTION_RE = /"((?:[^"\\]|\\.)*)" mentioned/g;

/** Reads the system and first user message of a troupe agent prompt. */
export function readAgentPrompt(system: string, user: string): AgentPromptView {
  const open = system.indexOf(T.collaborationOpen);
  const close = system.indexOf(T.collaborationClose, open);
  const instructions = (open >= 0 ? system.slice(0, open) : system).trim();
  const block = open >= 0 ? system.slice(open, close >= 0 ? close : undefined) : '';
  const blockLines = block.split('\n');
  const membersLine = blockLines.find((l) => l.startsWith(MEMBERS_PREFIX));
  const names = membersLine?.slice(MEMBERS_PREFIX.length);
  const members = names ? (names.endsWith(MEMBERS_SUFFIX) ? names.slice(0, names.length - MEMBERS_SUFFIX.length) : names).split(', ').filter(Boolean) : [];
  const stopWords = [...block.matchAll(MENTION_RE)].map((m) => unquote(m[1]!));

  const sections = splitSections(user);
  const thread = entries(sections.get(T.threadHeading) ?? '').map(threadEntry);
  const own = entries(sections.get(T.ownHeading) ?? '').map((e) => e.text);
  const ownThread = thread.filter((e) => e.self && e.kind === undefined).map((e) => e.text);
  const ownLatest = ownThread.length > 0 ? ownThread[ownThread.length - 1] : own[own.length - 1];
  const notes = entries(sections.get(T.notesHeading) ?? '').map(note);
  const last = thread[thread.length - 1];
  const answer = last?.kind === 'answer' && last.answersSelf ? last.text : notes.find((n) => n.kind === 'human_answer')?.text;
  return {
    instructions,
    members,
    swarm: blockLines.includes(T.swarmTurn),
    stopWords,
    task: (sections.get(T.taskHeading) ?? '').trim(),
    thread,
    spoke: ownLatest !== undefined,
    ...(ownLatest !== undefined ? { ownLatest } : {}),
    ...(answer !== undefined ? { answer } : {}),
    notes,
  };
}

const YOU = ' (you)';
const [HANDOFF_PREFIX] = T.threadEvent.handoff(SENTINEL, false).split(SENTINEL) as [string];
const [ANSWER_PREFIX] = T.threadEvent.answer(SENTINEL, false).split(SENTINEL) as [string];

/** A thread entry by its heading: `billing (you)`, `triage, handing off to billing`, `user, answering billing (you)`. */
function threadEntry({ heading, text }: { heading: string; text: string }): ThreadEntry & { answersSelf?: boolean } {
  const comma = heading.indexOf(', ');
  const who = comma < 0 ? heading : heading.slice(0, comma);
  const event = comma < 0 ? '' : heading.slice(comma);
  const self = who.endsWith(YOU);
  const entry = { agent: self ? who.slice(0, -YOU.length) : who, self, text };
  if (event === T.threadEvent.question()) return { ...entry, kind: 'question' };
  if (event.startsWith(HANDOFF_PREFIX)) return { ...entry, kind: 'handoff' };
  if (event.startsWith(ANSWER_PREFIX)) return { ...entry, kind: 'answer', answersSelf: event.endsWith(YOU) };
  return entry;
}

function unquote(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** The `##` sections of the user message by heading, found in the order troupe writes them. */
function splitSections(user: string): Map<string, string> {
  const headings = [T.taskHeading, T.summaryHeading, T.threadHeading, T.ownHeading, T.triggersHeading, T.notesHeading];
  const found: Array<{ heading: string; at: number }> = [];
  let from = 0;
  for (const heading of headings) {
    // the notes come last and follow texts agents wrote: the last such heading is troupe's
    const at = heading === T.notesHeading ? lastHeading(user, heading) : nextHeading(user, heading, from);
    if (at < 0 || at < from) continue;
    found.push({ heading, at });
    from = at + heading.length;
  }
  const out = new Map<string, string>();
  found.forEach(({ heading, at }, i) => {
    const end = i + 1 < found.length ? found[i + 1]!.at : user.length;
    out.set(heading, user.slice(at + heading.length, end).replace(/^\n+|\n+$/g, ''));
  });
  return out;
}

function nextHeading(text: string, heading: string, from: number): number {
  if (from === 0 && text.startsWith(`${heading}\n`)) return 0;
  const at = text.indexOf(`\n${heading}\n`, from);
  return at < 0 ? -1 : at + 1;
}

function lastHeading(text: string, heading: string): number {
  const at = text.lastIndexOf(`\n${heading}\n`);
  if (at >= 0) return at + 1;
  return text.startsWith(`${heading}\n`) ? 0 : -1;
}

/** The `### ` entries of a section, each with its heading line (without `### `) and its text. */
function entries(section: string): Array<{ heading: string; text: string }> {
  const out: Array<{ heading: string; text: string }> = [];
  for (const part of section.split(/\n\n(?=### )/)) {
    if (!part.startsWith('### ')) {
      if (out.length > 0) out[out.length - 1]!.text += `\n\n${part}`;
      continue;
    }
    const nl = part.indexOf('\n');
    out.push({ heading: (nl < 0 ? part : part.slice(0, nl)).slice(4).trim(), text: nl < 0 ? '' : part.slice(nl + 1) });
  }
  return out;
}

/** A note by its heading: `Handed off to you, with this message (from triage)`, `Answer from a human (from human)`. */
function note(e: { heading: string; text: string }): TurnNote {
  const m = /^(.*?)(?: \(from (.*)\))?$/.exec(e.heading)!;
  const label = m[1]!;
  const kind = label === T.noteLabels.handoff ? 'handoff' : label === T.noteLabels.human_answer ? 'human_answer' : 'other';
  return { kind, ...(m[2] !== undefined ? { from: m[2] } : {}), text: e.text };
}

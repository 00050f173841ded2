/**
 * How the offline model plays handoffs (docs/teams.md, "Handoffs"): offered `transfer_to_<name>`
 * tools, it decides from the request alone, like every offline reply.
 * - An agent that holds the task (nobody handed it the work) and has not answered yet transfers to
 *   the agent target whose name, or a word of whose description no other target shares, the task
 *   mentions most (ties: the first in its handoffs); with no match it asks the user which one, when
 *   it may, else it answers.
 * - An agent handed the work (a handoff note, or in a team thread someone spoke before it) that
 *   has not answered yet asks the user one question first, when it may; else it answers.
 * - After a human answer, an agent that asked which agent should take the request routes with the
 *   answer (else answers); any other answers. An agent that answered before answers again.
 * A transfer carries a message and a short labelled text (the agent's result for the turn). An
 * answer is an ordinary offline reply (`offline-replies.ts`), which closes the handed work.
 */
import { transferToolName } from '../core/graph/teams';
import { USER } from '../core/graph/types';
import { HANDOFF_TEXTS } from '../core/teams/handoffs';
import type { AgentPromptView } from './offline-prompt';

/** A transfer tool offered in the request. */
export interface OfflineTransferTool {
  name: string;
  description: string;
}

/** The transfer the offline model makes: one call, and the text of its reply. */
export interface OfflineTransfer {
  tool: string;
  target: string;
  message: string;
  text: string;
}

const LABEL = '[offline model]';

/**
 * Texts of the offline handoffs, so tests pin them.
 * @internal exported for tests
 */
export const OFFLINE_HANDOFF_TEXTS = {
  routeText: (agent: string, target: string, words: string[]) =>
    `${LABEL} ${agent}: this is for ${target} (the request mentions ${words.map((w) => `"${w}"`).join(', ')}); transferring it.`,
  routeMessage: (agent: string, topic: string) => `${LABEL} From ${agent}: please take over "${topic}".`,
  /** The start of a router's question: after the answer, the agent routes again. */
  whichText: (agent: string) => `${LABEL} ${agent}: I cannot tell who should handle this yet; asking the user.`,
  whichMessage: (topic: string, targets: string[]) =>
    `${LABEL} Who should handle "${topic}": ${targets.join(' or ')}? Please say what the request is about.`,
  askText: (agent: string) => `${LABEL} ${agent}: I need one detail before I can answer; asking the user.`,
  askMessage: (topic: string) =>
    `${LABEL} To finish "${topic}", please give me the details I need (numbers, dates, what you expect).`,
} as const;

/** Words too common to route by. */
const COMMON = new Set(
  'about after also before each from have into more most other over please some such than that their them then there these they this those under very what when where which with your'.split(' '),
);

/** A word's key for matching: lower case, its first five letters (`invoices`, `invoice` → `invoi`). */
function stem(word: string): string {
  return word.toLowerCase().slice(0, 5);
}

function words(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 4 && !COMMON.has(w.toLowerCase()));
}

const SENTINEL = '\u0000';
/** The start of an agent target's description (`Hand the conversation to `). */
const AGENT_DESCRIPTION_START = HANDOFF_TEXTS.agentDescription(SENTINEL, '').split(SENTINEL)[0]!;

/**
 * Whether an offered tool is a transfer troupe made (`handoffDefinition`): its name is a
 * `transfer_to_` name and its description troupe's, so a worker tool of a similar name is not one.
 */
export function isTransferTool(tool: OfflineTransferTool): boolean {
  if (!tool.name.startsWith(transferToolName(''))) return false;
  return tool.description === HANDOFF_TEXTS.userDescription || tool.description.startsWith(AGENT_DESCRIPTION_START);
}

/** What a target tool is about: its description less troupe's `Hand the conversation to <target>: `. */
function aboutOf(tool: OfflineTransferTool, target: string): string {
  const prefix = HANDOFF_TEXTS.agentDescription(target, '');
  return tool.description.startsWith(prefix) ? tool.description.slice(prefix.length) : tool.description;
}

interface Target {
  tool: string;
  name: string;
  about: string;
}

function targetsOf(tools: readonly OfflineTransferTool[]): Target[] {
  const prefix = transferToolName('');
  return tools.filter(isTransferTool).map((t) => {
    const name = t.name.slice(prefix.length);
    return { tool: t.name, name, about: aboutOf(t, name) };
  });
}

/**
 * The agent target the text mentions most, by its name or by words of its description that no
 * other target's description has; ties go to the first. Undefined when none is mentioned.
 */
function bestTarget(targets: readonly Target[], text: string): { target: Target; words: string[] } | undefined {
  const said = new Map<string, string>();
  for (const w of words(text)) if (!said.has(stem(w))) said.set(stem(w), w.toLowerCase());
  const named = new Set((text.toLowerCase().match(/[\p{L}\p{N}_-]+/gu) ?? []));
  const stemsOf = targets.map((t) => new Set(words(t.about).map(stem)));
  let best: { target: Target; words: string[] } | undefined;
  targets.forEach((target, i) => {
    const own = [...stemsOf[i]!].filter((s) => stemsOf.every((other, j) => j === i || !other.has(s)));
    const found = [...new Set([...(named.has(target.name.toLowerCase()) ? [target.name] : []), ...own.filter((s) => said.has(s)).map((s) => said.get(s)!)])];
    if (found.length > 0 && (!best || found.length > best.words.length)) best = { target, words: found };
  });
  return best;
}

/** The transfer the offline model makes in this reply, or undefined when it answers in text. */
export function offlineTransfer(agent: string, topic: string, view: AgentPromptView, tools: readonly OfflineTransferTool[]): OfflineTransfer | undefined {
  const targets = targetsOf(tools);
  const user = targets.find((t) => t.tool === transferToolName(USER));
  const agents = targets.filter((t) => t !== user);
  const answer = view.answer;
  const handed = view.notes.some((n) => n.kind === 'handoff') || view.thread.some((e) => !e.self);
  const route = (text: string): OfflineTransfer | undefined => {
    const best = bestTarget(agents, text);
    if (!best) return undefined;
    const t = OFFLINE_HANDOFF_TEXTS;
    return { tool: best.target.tool, target: best.target.name, message: t.routeMessage(agent, topic), text: t.routeText(agent, best.target.name, best.words) };
  };
  const ask = (text: string, message: string): OfflineTransfer | undefined => (user ? { tool: user.tool, target: USER, message, text } : undefined);

  if (answer) {
    // the answer to its own question: a router routes with it, anyone else answers
    const asked = view.ownLatest?.startsWith(OFFLINE_HANDOFF_TEXTS.whichText(agent)) ?? false;
    return asked ? route(`${view.task}\n${answer}`) : undefined;
  }
  if (view.spoke) return undefined;
  if (handed) return ask(OFFLINE_HANDOFF_TEXTS.askText(agent), OFFLINE_HANDOFF_TEXTS.askMessage(topic));
  if (agents.length === 0) return ask(OFFLINE_HANDOFF_TEXTS.askText(agent), OFFLINE_HANDOFF_TEXTS.askMessage(topic));
  return (
    route(view.task) ??
    ask(OFFLINE_HANDOFF_TEXTS.whichText(agent), OFFLINE_HANDOFF_TEXTS.whichMessage(topic, agents.map((a) => a.name)))
  );
}

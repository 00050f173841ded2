/**
 * The replies of troupe's built-in offline model: a deterministic, stateless, clearly labelled
 * stand-in for an LLM so the demo runs with no API key. Every decision is derived from the request
 * alone (agent name, kind, prompt), so a replayed or retried call gets the same answer:
 * - a scoring agent (its system prompt asks for `score: N`) reviews the newest "Draft vK" it sees
 *   and scores v1 → 60, v2 → 75, v3+ → 90, so a `score_gte: 85` loop ends after three rounds;
 * - a drafting agent (writer/author, or one that receives scored critiques) writes "Draft vK+1",
 *   K being the newest draft number in its prompt;
 * - a judge gets a valid `convergence_verdict`; compaction gets a short summary; a selector the
 *   name of a candidate (`offline-selector.ts`); anyone else a short answer naming the agent and
 *   the task (offered transfer tools, it may hand off first: `offline-handoffs.ts`);
 * - an answer that closes work (after a human's answer, on work handed to it, or in a team once
 *   every other member has spoken) ends with a `text_mention` stop word its instructions name, as
 *   a model following them would.
 */

import { readAgentPrompt, type AgentPromptView } from './offline-prompt';
import { offlineSelection } from './offline-selector';

/** Which troupe activity sent the request (the `x-troupe-kind` header). */
export type OfflineKind = 'agent' | 'judge' | 'compaction' | 'selector';

/** What the reply logic reads from one chat-completions request. */
export interface OfflineRequest {
  agent?: string;
  kind: OfflineKind;
  messages: Array<{ role: string; content: string }>;
  /** `response_format` of the request, when any. */
  responseFormat?: { type?: string; json_schema?: { name?: string; schema?: unknown } };
}

/** User-visible texts of the offline model, in one place so tests pin them. */
export const OFFLINE_TEXTS = {
  label: '[offline model]',
  modelName: 'troupe-offline-model',
  notice: '(deterministic stand-in: set OPENAI_API_KEY to use a real model)',
  draftTitle: (k: number, topic: string) => `Draft v${k}: ${topic}`,
  draftBody: [
    'Long-running work fails in the middle: processes crash, deployments roll, people take days to answer.',
    'Durable execution records every step, so a run resumes exactly where it stopped instead of starting over.',
    'For teams this means fewer lost hours, auditable histories and agents that can safely wait for a human.',
  ],
  revisions: [
    'Revision: sharpened the thesis in the first paragraph.',
    'Revision: added a concrete example of a crash and a resumed run.',
    'Revision: tightened the conclusion around the reader’s decision.',
  ],
  reviewTitle: (k: number) => `Review of Draft v${k}.`,
  reviewPoints: [
    ['Paragraph 1: state the thesis in one sentence.', 'Paragraph 2: add a concrete failure example.', 'Conclusion: say what a manager should do next.'],
    ['Paragraph 2: the example needs numbers.', 'Paragraph 3: cut the repeated claim.', 'Conclusion: end on the decision, not the history.'],
    ['Paragraph 1: strong, keep it.', 'Paragraph 2: the example now lands.', 'Conclusion: ready to publish.'],
  ],
  answer: (agent: string, topic: string) =>
    `${agent}: here is my part of the work on "${topic}". I covered the key points briefly and handed on what the next step needs.`,
  /** The answer that closes work handed to the agent, or a team's once every other member has spoken. */
  closing: (agent: string, topic: string) =>
    `${agent}: here is my answer on "${topic}": the key points are covered and nothing is left to hand on.`,
  /** The answer after a human answered the agent's question (a transfer to `user`). */
  answerAfterHuman: (agent: string, topic: string, answer: string) =>
    `${agent}: thank you, with your answer ("${answer}") I can finish "${topic}". I covered the key points briefly.`,
  summary: (count: number) => `Summary of earlier turns: ${count} message(s) condensed; the latest draft and review are kept.`,
  verdict: (converged: boolean, why: string) => `${converged ? 'Converged' : 'Not converged yet'}: ${why}`,
} as const;

/**
 * Scores the critic gives to drafts v1, v2, v3 and later.
 * @internal exported for tests
 */
export const OFFLINE_SCORES = [60, 75, 90] as const;

const DRAFT_RE = /\bDraft v(\d+)\b/g;
const SCORE_RE = /\bscore\b\**\s*[:=]\s*\**\s*(-?\d+(?:\.\d+)?)/gi;
/** A prompt that asks for a score: troupe's contract (`score: <0-100>`) or a role's own words (`score: N`). */
const SCORE_CONTRACT_RE = /score:\s*(?:N\b|<0-100>)/;
const IDENTITY_RE = /You are the agent "([^"]+)"/;
const DRAFTER_NAME_RE = /writ|draft|author|compos/i;

/** A chat-completions reply: plain text, or a JSON string for structured requests. */
export function offlineReply(req: OfflineRequest): string {
  switch (req.kind) {
    case 'judge':
      return judgeReply(req);
    case 'compaction':
      return `${OFFLINE_TEXTS.label} ${OFFLINE_TEXTS.summary(Math.max(0, req.messages.length - 1))}`;
    case 'selector':
      return offlineSelection(req.messages);
    case 'agent':
      return agentReply(req);
    default: {
      const never: never = req.kind;
      return never;
    }
  }
}

/** The agent a request is for: its header, else the name its prompt gives it. */
export function agentNameOf(req: OfflineRequest): string {
  const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  return req.agent || IDENTITY_RE.exec(system)?.[1] || 'agent';
}

function agentReply(req: OfflineRequest): string {
  const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  const user = req.messages.filter((m) => m.role !== 'system').map((m) => m.content).join('\n');
  const agent = agentNameOf(req);
  const schema = req.responseFormat?.type === 'json_schema' ? req.responseFormat.json_schema?.schema : undefined;
  if (schema !== undefined) return JSON.stringify(sampleFromSchema(schema, `${OFFLINE_TEXTS.label} ${agent}`));
  const latestDraft = maxNumber(user, DRAFT_RE);
  if (SCORE_CONTRACT_RE.test(system)) return review(latestDraft ?? 1);
  if (DRAFTER_NAME_RE.test(agent) || maxNumber(user, SCORE_RE) !== undefined) {
    return draft((latestDraft ?? 0) + 1, topicOf(user));
  }
  return answer(agent, topicOf(user), agentPromptOf(req));
}

/** The troupe prompt of an agent request: its system message and first user message. */
export function agentPromptOf(req: OfflineRequest): AgentPromptView {
  const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  return readAgentPrompt(system, req.messages.find((m) => m.role === 'user')?.content ?? '');
}

/** Characters of a human's answer quoted back. */
const QUOTED_ANSWER_CHARS = 80;

/** The short answer; one that closes work ends with the stop word its instructions name. */
function answer(agent: string, topic: string, view: AgentPromptView): string {
  const quoted = view.answer?.replace(/\s+/g, ' ').trim();
  const closes = closesWork(view);
  const text =
    quoted !== undefined
      ? OFFLINE_TEXTS.answerAfterHuman(agent, topic, quoted.length > QUOTED_ANSWER_CHARS ? `${quoted.slice(0, QUOTED_ANSWER_CHARS - 3)}...` : quoted)
      : closes
        ? OFFLINE_TEXTS.closing(agent, topic)
        : OFFLINE_TEXTS.answer(agent, topic);
  const stop = closes ? view.stopWords.find((w) => view.instructions.toLowerCase().includes(w.toLowerCase())) : undefined;
  return `${OFFLINE_TEXTS.label} ${text}${stop !== undefined ? `\n${stop}` : ''}`;
}

/**
 * Whether an answer closes the work: it follows a human's answer, or work handed to the agent
 * (a handoff note; in a swarm, someone spoke before it), or every other team member has spoken.
 */
function closesWork(view: AgentPromptView): boolean {
  if (view.answer !== undefined || view.notes.some((n) => n.kind === 'handoff')) return true;
  if (view.swarm && view.thread.some((e) => !e.self)) return true;
  return view.members.length > 0 && view.members.every((m) => view.thread.some((e) => e.agent === m && !e.self));
}

function draft(k: number, topic: string): string {
  const revisions = OFFLINE_TEXTS.revisions.slice(0, Math.max(0, k - 1));
  return [
    `${OFFLINE_TEXTS.label} ${OFFLINE_TEXTS.draftTitle(k, topic)}`,
    '',
    ...OFFLINE_TEXTS.draftBody,
    ...(revisions.length > 0 ? ['', ...revisions] : []),
    '',
    OFFLINE_TEXTS.notice,
  ].join('\n');
}

function review(k: number): string {
  const i = Math.min(Math.max(k, 1), OFFLINE_SCORES.length) - 1;
  return [
    `${OFFLINE_TEXTS.label} ${OFFLINE_TEXTS.reviewTitle(k)}`,
    ...OFFLINE_TEXTS.reviewPoints[i].map((p) => `- ${p}`),
    `score: ${OFFLINE_SCORES[i]}`,
  ].join('\n');
}

function judgeReply(req: OfflineRequest): string {
  const user = req.messages.filter((m) => m.role !== 'system').map((m) => m.content).join('\n');
  const result = /<result[^>]*>([\s\S]*?)<\/result>/.exec(user)?.[1] ?? user;
  const score = maxNumber(result, SCORE_RE);
  const draftNo = maxNumber(result, DRAFT_RE);
  let converged: boolean;
  let why: string;
  if (score !== undefined) {
    converged = score >= 85;
    why = `the result carries score ${score} (85 needed)`;
  } else if (draftNo !== undefined) {
    converged = draftNo >= OFFLINE_SCORES.length;
    why = `draft v${draftNo} (v${OFFLINE_SCORES.length} needed)`;
  } else {
    converged = result.trim().length > 0;
    why = converged ? 'the result answers the task' : 'the result is empty';
  }
  return JSON.stringify({ converged, reason: `${OFFLINE_TEXTS.label} ${OFFLINE_TEXTS.verdict(converged, why)}` });
}

/** The task's first line (from the `## Task` section of troupe prompts), shortened. */
export function topicOf(user: string): string {
  const section = /## Task\s*\n([\s\S]*?)(?:\n## |$)/.exec(user)?.[1] ?? user;
  const line = section.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? 'the task';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

function maxNumber(text: string, re: RegExp): number | undefined {
  let max: number | undefined;
  for (const m of text.matchAll(re)) {
    const n = Number(m[1]);
    if (Number.isFinite(n) && (max === undefined || n > max)) max = n;
  }
  return max;
}

/** A small JSON value that satisfies common JSON Schemas (for schema retries). */
export function sampleFromSchema(schema: unknown, text: string, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 8) return text;
  const s = schema as Record<string, any>;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    if (Array.isArray(s[key]) && s[key].length > 0) return sampleFromSchema(s[key][0], text, depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const props: Record<string, unknown> = s.properties ?? {};
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(props)) out[k] = sampleFromSchema(v, text, depth + 1);
      return out;
    }
    case 'array': {
      const n = typeof s.minItems === 'number' ? s.minItems : 1;
      return Array.from({ length: n }, () => sampleFromSchema(s.items, text, depth + 1));
    }
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : typeof s.maximum === 'number' ? Math.min(0, s.maximum) : 0;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default: {
      const min = typeof s.minLength === 'number' ? s.minLength : 0;
      return text.length >= min ? text : text.padEnd(min, '.');
    }
  }
}

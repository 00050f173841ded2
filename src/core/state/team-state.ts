/**
 * A run's team state (docs/semantics.md, "Teams that go on"): what a team needs to go on after the
 * run ends — the shared thread as the agents see it, each agent's own context, whose turn is next,
 * the thread the run belongs to — taken from the run state at the run's end (one stopping boundary
 * by construction), and read back into a fresh run state when a new run continues it. The document
 * is versioned and checked field by field on the way in: a state file or a forged start input is
 * untrusted input. Conditions, budgets, goals and open requests are not part of it: each run has its
 * own. Pure.
 */
import { z } from 'zod';
import { didYouMean } from '../config/did-you-mean';
import type { CompiledGraph } from '../graph/types';
import type { PromptNote } from '../prompts/build';
import { TEAM_STATE_MAX_BYTES, TEAM_STATE_VERSION, type AgentContext, type TeamCursor, type TeamState, type TeamThreadEntry } from './team-types';
import { hashResult } from '../text/hash';
import { capText, utf8ByteLength } from '../text/utf8';
import { TO_BE_SELECTED, type WaveItem } from '../waves/types';
import { entryWave, pushThread, TEXT_CAP_BYTES, warn, type RunState } from './state';

export {
  TEAM_STATE_VERSION,
  TEAM_STATE_MAX_BYTES,
  type AgentContext,
  type Continuation,
  type TeamCursor,
  type TeamState,
  type TeamThreadEntry,
  type ThreadUsage,
} from './team-types';

/**
 * Every user-visible text of team states, in one place so tests pin them.
 * @internal exported for tests
 */
export const TEAM_STATE_TEXTS = {
  version: (v: unknown) => `version: ${JSON.stringify(v)} is not a team state version this troupe reads (it reads ${TEAM_STATE_VERSION})`,
  field: (path: string, message: string) => `${path || '(document)'}: ${message}`,
  missing: (agents: string[]) => `the role has no agent${agents.length === 1 ? '' : 's'} ${agents.map((a) => `"${a}"`).join(', ')} of the team state`,
  extra: (agent: string, hint: string) => `the role's agent "${agent}" is not in the team state${hint}`,
  topology: (state: string, role: string) => `the team state's topology is ${state}, the role's is ${role}`,
  changed: (agents: string[]) => `agent${agents.length === 1 ? '' : 's'} ${agents.join(', ')} changed since the team state was taken (instructions, model or tools): the thread goes on with the new definition`,
  tooLarge: (bytes: number, part: string, partBytes: number) =>
    `the team state takes ${kib(bytes)} KiB, over its ${kib(TEAM_STATE_MAX_BYTES)} KiB bound; its largest part is ${part} (${kib(partBytes)} KiB): set compaction (context_window) to keep the thread short`,
  resultTooLarge: (bytes: number, part: string, partBytes: number) =>
    `the team state takes the RunResult to ${kib(bytes)} KiB, over the ${kib(RESULT_MAX_BYTES)} KiB a result may take; its largest part is ${part} (${kib(partBytes)} KiB): set compaction (context_window) to keep the thread short`,
  cursorAgent: (agent: string) => `cursor: agent "${agent}" is not in the team state's agents`,
  failedSource: (status: string, reason: string) => `the run continued ended ${status}/${reason}: the team goes on from its last recorded step`,
  teamTooLarge: (agent: string, bytes: number) => `the team state of ${agent}'s last child run (${kib(bytes)} KiB) is not kept: its next child run starts afresh`,
} as const;

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0);
}

/** The largest team state a team agent's context keeps of its child run (a quarter of the bound). */
const CHILD_STATE_MAX_BYTES = TEAM_STATE_MAX_BYTES / 4;

/** The definition digest of one agent: what makes a continued agent "changed". */
function agentDigest(graph: CompiledGraph, agent: string): string {
  const a = graph.agents[agent];
  return hashResult(JSON.stringify([a.instructions, a.model.name, a.tools, a.handoffs ?? [], a.team ? Object.keys(a.team.graph.agents) : []]));
}

/** The topology a team state names: the role's, or `custom` for a role with flow edges. */
export function topologyOf(graph: CompiledGraph): string {
  return graph.topology ?? 'custom';
}

const text = z.string();
const note = z.strictObject({ kind: z.string(), text, from: z.string().optional() });
const entry = z.strictObject({
  agent: z.string().min(1),
  text,
  kind: z.enum(['handoff', 'question', 'answer', 'task']).optional(),
  to: z.string().optional(),
});
const counts = { promptTokens: z.number().nonnegative(), completionTokens: z.number().nonnegative(), totalTokens: z.number().nonnegative() };

/** The schema of a version-1 team state. Built on first use (see `core/humans/signals.ts` on frozen modules). */
function schema() {
  const context: z.ZodType<AgentContext> = z.lazy(() =>
    z.strictObject({
      own: z.array(text),
      summary: text.optional(),
      summarized: z.number().int().nonnegative().optional(),
      notes: z.array(note).optional(),
      team: teamState.optional(),
    }),
  ) as unknown as z.ZodType<AgentContext>;
  const teamState: z.ZodType<TeamState> = z.lazy(() =>
    z.strictObject({
      version: z.literal(TEAM_STATE_VERSION),
      role: z.strictObject({ name: z.string(), agents: z.array(z.string().min(1)).min(1), topology: z.string(), digests: z.record(z.string(), z.string()) }),
      thread: z.array(entry),
      contexts: z.record(z.string(), context),
      cursor: z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('wave'), wave: z.array(z.strictObject({ agent: z.string().min(1), triggers: z.array(z.strictObject({ from: z.string(), text })) })).min(1) }),
        z.strictObject({ kind: z.literal('select'), previous: z.string().optional() }),
        z.strictObject({ kind: z.literal('entry') }),
      ]),
      threadId: z.string().min(1),
      threadUsage: z.strictObject({ ...counts, costUsd: z.number().nonnegative(), llmRequests: z.number().int().nonnegative(), runs: z.number().int().nonnegative() }),
      source: z.strictObject({ runId: z.string(), status: z.string(), reason: z.string(), steps: z.number().int().nonnegative() }),
    }),
  ) as unknown as z.ZodType<TeamState>;
  return teamState;
}

let built: ReturnType<typeof schema> | undefined;

/**
 * Read an untrusted document as a team state: the version first (a document of another version is
 * refused as such), then every field, each problem naming its path; then the cursor's agents.
 */
export function readTeamState(doc: unknown): { ok: true; state: TeamState } | { ok: false; problems: string[] } {
  const version = (doc as { version?: unknown } | null)?.version;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { ok: false, problems: [TEAM_STATE_TEXTS.field('', 'must be a JSON object')] };
  if (version !== TEAM_STATE_VERSION) return { ok: false, problems: [TEAM_STATE_TEXTS.version(version)] };
  built ??= schema();
  const parsed = built.safeParse(doc);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.slice(0, 20).map((i) => TEAM_STATE_TEXTS.field(i.path.map(String).join('.'), i.message)) };
  }
  const state = parsed.data;
  const agents = new Set(state.role.agents);
  const problems = cursorAgents(state.cursor).filter((a) => !agents.has(a)).map((a) => TEAM_STATE_TEXTS.cursorAgent(a));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, state };
}

function cursorAgents(cursor: TeamCursor): string[] {
  if (cursor.kind === 'wave') return cursor.wave.map((w) => w.agent);
  if (cursor.kind === 'select' && cursor.previous !== undefined) return [cursor.previous];
  return [];
}

/** The encoded size of a team state, and its largest part (`thread`, `contexts.<agent>`, …). */
export function teamStateSize(state: TeamState): { bytes: number; largest: { part: string; bytes: number } } {
  const parts: Array<[string, unknown]> = [
    ['thread', state.thread],
    ...Object.entries(state.contexts).map(([agent, c]): [string, unknown] => [`contexts.${agent}`, c]),
    ['cursor', state.cursor],
  ];
  let largest = { part: 'thread', bytes: 0 };
  for (const [part, value] of parts) {
    const bytes = utf8ByteLength(JSON.stringify(value));
    if (bytes > largest.bytes) largest = { part, bytes };
  }
  return { bytes: utf8ByteLength(JSON.stringify(state)), largest };
}

/**
 * The most a RunResult may take with its team state: under Temporal's 2 MB payload limit, with room
 * for the payload's envelope and encryption.
 */
export const RESULT_MAX_BYTES = 1792 * 1024;

/**
 * The size problem of a team state over its bound, or undefined; with `result` (the RunResult it
 * would ride in), also the problem of a RunResult that would then pass {@link RESULT_MAX_BYTES}.
 */
export function sizeProblem(state: TeamState, max = TEAM_STATE_MAX_BYTES, result?: unknown): string | undefined {
  const size = teamStateSize(state);
  if (size.bytes > max) return TEAM_STATE_TEXTS.tooLarge(size.bytes, size.largest.part, size.largest.bytes);
  if (result === undefined) return undefined;
  const total = size.bytes + utf8ByteLength(JSON.stringify(result));
  return total > RESULT_MAX_BYTES ? TEAM_STATE_TEXTS.resultTooLarge(total, size.largest.part, size.largest.bytes) : undefined;
}

/**
 * Whether a role can continue a team state: the same agent names (the missing and the extra named,
 * with did-you-mean for a rename) and the same topology are errors; agents whose definition changed
 * are a warning.
 */
export function continuationIssues(graph: CompiledGraph, state: TeamState): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const names = Object.keys(graph.agents);
  const missing = state.role.agents.filter((a) => !(a in graph.agents));
  const extra = names.filter((a) => !state.role.agents.includes(a));
  if (missing.length > 0) errors.push(TEAM_STATE_TEXTS.missing(missing));
  for (const a of extra) errors.push(TEAM_STATE_TEXTS.extra(a, didYouMean(a, missing)));
  if (topologyOf(graph) !== state.role.topology) errors.push(TEAM_STATE_TEXTS.topology(state.role.topology, topologyOf(graph)));
  const changed = errors.length > 0 ? [] : names.filter((a) => state.role.digests[a] !== undefined && state.role.digests[a] !== agentDigest(graph, a));
  const warnings = changed.length > 0 ? [TEAM_STATE_TEXTS.changed(changed)] : [];
  if (state.source.status === 'failed' || state.source.status === 'cancelled') warnings.push(TEAM_STATE_TEXTS.failedSource(state.source.status, state.source.reason));
  return { errors, warnings };
}

/** What the end of the run says, for the team state's `source`. */
export interface TeamStateEnd {
  status: string;
  reason: string;
}

/**
 * The team state of a run at its end: the thread (with the task first when the run started the
 * thread), each agent's context, the cursor, and the thread's usage with this run's added. Every text
 * is within the RunResult's per-text cap.
 */
export function teamStateOf(state: RunState, graph: CompiledGraph, end: TeamStateEnd, runId: string, lastDispatched?: readonly WaveItem[]): TeamState {
  const continuation = state.continuation;
  const thread: TeamThreadEntry[] = state.thread.map(({ seq: _seq, ...e }) => ({ ...e, text: capText(e.text, TEXT_CAP_BYTES) }));
  // a task leads the thread: a first run's own, once, even when older entries were dropped; a
  // continued run pushed its task as an entry, and leads with its task only when none is kept
  const leads = !continuation || !state.thread.some((e) => e.kind === 'task');
  if (leads) thread.unshift({ agent: 'user', kind: 'task', text: capText(state.task, TEXT_CAP_BYTES) });
  const firstSeq = state.thread[0]?.seq ?? state.threadSeq + 1;
  const offset = leads ? 1 : 0;
  const contexts: Record<string, AgentContext> = {};
  for (const name of Object.keys(graph.agents)) {
    const memory = state.memory[name];
    const notes = state.notes[name];
    const team = state.teams?.[name];
    const context: AgentContext = { own: (memory?.own ?? []).map((t) => capText(t, TEXT_CAP_BYTES)) };
    if (memory?.summary !== undefined) context.summary = memory.summary;
    if (memory?.threadSeq !== undefined && memory.threadSeq >= firstSeq) context.summarized = memory.threadSeq - firstSeq + 1 + offset;
    if (notes && notes.length > 0) context.notes = notes.map((n) => ({ ...n }));
    if (team) context.team = team;
    contexts[name] = context;
  }
  const usage = state.usage;
  const before = continuation?.before;
  return {
    version: TEAM_STATE_VERSION,
    role: {
      name: graph.name,
      agents: Object.keys(graph.agents),
      topology: topologyOf(graph),
      digests: Object.fromEntries(Object.keys(graph.agents).map((a) => [a, agentDigest(graph, a)])),
    },
    thread,
    contexts,
    cursor: cursorOf(state, graph, interrupted(end, state, lastDispatched)),
    threadId: continuation?.threadId ?? state.workflowId,
    threadUsage: {
      promptTokens: (before?.promptTokens ?? 0) + usage.promptTokens,
      completionTokens: (before?.completionTokens ?? 0) + usage.completionTokens,
      totalTokens: (before?.totalTokens ?? 0) + usage.totalTokens,
      costUsd: (before?.costUsd ?? 0) + usage.costUsd,
      llmRequests: (before?.llmRequests ?? 0) + usage.llmRequests,
      runs: (before?.runs ?? 0) + 1,
    },
    source: { runId, status: end.status, reason: end.reason, steps: state.steps },
  };
}

/**
 * The wave a run that failed or was cancelled in it did not finish: the one dispatched last, when
 * nothing comes after it. Continuing goes on from its last recorded step, so that wave runs again.
 */
function interrupted(end: TeamStateEnd, state: RunState, lastDispatched: readonly WaveItem[] | undefined): readonly WaveItem[] | undefined {
  const broken = end.status === 'failed' || end.status === 'cancelled';
  return broken && state.frontier.length === 0 && state.deferred.length === 0 ? lastDispatched : undefined;
}

/** The cursor of a run at its end: its next wave (or the wave it was interrupted in), a selector's next choice, or the entry. */
function cursorOf(state: RunState, graph: CompiledGraph, interruptedWave?: readonly WaveItem[]): TeamCursor {
  const next = interruptedWave ?? (state.frontier.length > 0 ? state.frontier : state.deferred);
  if (graph.selector) {
    const previous = state.round.lastWave[0] ?? state.previousSpeaker;
    return previous !== undefined ? { kind: 'select', previous } : { kind: 'select' };
  }
  const wave = next.filter((i) => i.agent !== TO_BE_SELECTED && i.agent in graph.agents);
  if (wave.length === 0) return { kind: 'entry' };
  return { kind: 'wave', wave: wave.map((i) => ({ agent: i.agent, triggers: i.triggers.map((t) => ({ from: t.from, text: capText(t.text, TEXT_CAP_BYTES) })) })) };
}

/**
 * A fresh run state made to go on from a team state (checked with {@link readTeamState} and
 * {@link continuationIssues} before): the thread and each agent's context as they were, the task
 * appended to the thread (as the answer to the question the cursor's agent asked last, when it
 * did: the run's task then stays the thread's last task), and the first wave at the cursor.
 * Termination state, budgets and usage stay fresh.
 */
export function continueRunState(state: RunState, graph: CompiledGraph, team: TeamState, task: string | undefined): void {
  for (const e of team.thread) pushThread(state, { ...e });
  const summarizedBase = state.threadSeq - team.thread.length;
  for (const [name, context] of Object.entries(team.contexts)) {
    if (!(name in graph.agents)) continue;
    state.memory[name] = {
      own: [...context.own],
      ...(context.summary !== undefined ? { summary: context.summary } : {}),
      ...(context.summarized !== undefined ? { threadSeq: summarizedBase + context.summarized } : {}),
    };
    for (const n of context.notes ?? []) (state.notes[name] ??= []).push({ ...n } as PromptNote);
    if (context.team) (state.carriedTeams ??= {})[name] = context.team;
  }
  const asker = lastQuestionOf(team);
  const cursorAgent = team.cursor.kind === 'wave' && team.cursor.wave.length === 1 ? team.cursor.wave[0].agent : undefined;
  const given = task !== undefined && task !== '';
  const answers = given && asker !== undefined && asker === cursorAgent;
  // an answer reaches its asker as a human's answer does in a run (core/humans/decisions.ts): after
  // the question in a shared thread, else as a note; the work it answers stays the run's task
  if (answers && graph.context !== 'thread') (state.notes[asker] ??= []).push({ kind: 'human_answer', text: task, from: 'human' });
  else if (answers) pushThread(state, { agent: 'user', kind: 'answer', to: asker, text: task });
  else if (given) pushThread(state, { agent: 'user', kind: 'task', text: task });
  state.task = given && !answers ? task : (lastTask(team) ?? state.task);
  state.frontier = frontierAt(graph, team.cursor, state.task);
  leadInLaps(state, graph);
  if (team.cursor.kind === 'select' && team.cursor.previous !== undefined) state.previousSpeaker = team.cursor.previous;
  state.continuation = { threadId: team.threadId, from: team.source.runId, before: { ...team.threadUsage } };
}

/**
 * A loop entered at the cursor, midway (a round-robin continued at its third agent): the lap from
 * there to the loop's back edge finishes the source run's iteration, so it is not counted — the
 * loop's counter starts at -1 — and the iterations of this run count from the continued run's first
 * speaker (docs/semantics.md, "Teams that go on"). Without it, a cap derived from `max_messages`
 * (`core/graph/cap.ts`, which assumes a round starts at the loop's entry) ends the run early.
 */
function leadInLaps(state: RunState, graph: CompiledGraph): void {
  for (const group of graph.loopGroups) {
    const starts = new Set(group.backEdges.map((i) => graph.edges[i].to));
    if (state.frontier.some((w) => group.nodes.includes(w.agent) && !starts.has(w.agent))) state.round.loopCounters[group.id] = -1;
  }
}

/** The first wave of a continued run: the cursor's, with the task among its triggers; else the entry. */
function frontierAt(graph: CompiledGraph, cursor: TeamCursor, task: string): WaveItem[] {
  if (cursor.kind !== 'wave') return entryWave(graph, task);
  return cursor.wave.map((w) => ({ agent: w.agent, triggers: [{ from: 'parent', text: task }, ...w.triggers.filter((t) => t.from !== 'parent')] }));
}

/** The agent whose question to the user is the thread's last entry, if it is one. */
function lastQuestionOf(team: TeamState): string | undefined {
  const last = team.thread[team.thread.length - 1];
  return last?.kind === 'question' ? last.agent : undefined;
}

function lastTask(team: TeamState): string | undefined {
  for (let i = team.thread.length - 1; i >= 0; i--) if (team.thread[i].kind === 'task') return team.thread[i].text;
  return undefined;
}

/** Keep a team agent's child team state for its next child run, when it is within its bound (a warning otherwise). */
export function keepChildTeamState(state: RunState, agent: string, child: TeamState | undefined): void {
  if (!child) return;
  const bytes = utf8ByteLength(JSON.stringify(child));
  if (bytes > CHILD_STATE_MAX_BYTES) {
    warn(state, TEAM_STATE_TEXTS.teamTooLarge(agent, bytes));
    if (state.teams) delete state.teams[agent];
    return;
  }
  (state.teams ??= {})[agent] = child;
}

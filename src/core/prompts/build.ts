/**
 * The agent prompt builder: what one agent sees in one dispatch, as chat
 * messages. Pure and deterministic (same input, byte-identical messages) so replays and tests agree,
 * and bounded (the last OWN_RESULTS_KEPT own results, the last THREAD_ENTRIES_KEPT thread entries) so
 * the prompt stays flat as iterations grow. Fitting to a context window lives in `context.ts`.
 */
import { transferToolName } from '../graph/teams';
import { PARENT, type CompiledGraph, type Edge } from '../graph/types';
import type { ChatMessage } from '../llm/contract';

/** How many of the agent's own previous results an inbox prompt shows. */
export const OWN_RESULTS_KEPT = 2;

/** How many shared-thread entries a thread prompt shows. */
export const THREAD_ENTRIES_KEPT = 8;

/** Kinds of labelled notes added to one dispatch. */
type PromptNoteKind =
  | 'user_message'
  | 'human_answer'
  | 'approval_note'
  | 'reject_reason'
  | 'goal_framework'
  | 'goal_continuation'
  | 'schema_retry'
  | 'handoff'
  | 'transfer_refused';

/** One labelled note; `from` names its origin (a user, a request id) when the caller knows it. */
export interface PromptNote {
  kind: PromptNoteKind;
  text: string;
  from?: string;
}

/**
 * One entry of the shared thread: an agent's output, or what happened between turns where it
 * happened (docs/teams.md, "Handoffs"): a transfer with its message (`handoff`), a question to the
 * user (`question`, a transfer to `user`) and the human's answer (`answer`, by `user`).
 */
export interface ThreadEntry {
  agent: string;
  text: string;
  /** Absent for an agent's output; `task` is a task of the user in a continued thread (docs/semantics.md, "Teams that go on"). */
  kind?: 'handoff' | 'question' | 'answer' | 'task';
  /** Who a transfer or a question went to, or whose question an answer answers. */
  to?: string;
}

/** Everything the builder needs for one dispatch of one agent; all texts are already final. */
export interface AgentPromptInput {
  graph: CompiledGraph;
  agent: string;
  task: string;
  round: number;
  wave: number;
  iteration: number;
  maxIterations: number;
  /** The `describeTermination` lines (ANY / ALL), injected by the caller; a string may hold several lines. */
  stopConditions?: string | string[];
  /** True when a `score_gte` condition reads this agent: the contract asks for `score: N`. */
  scoreContract?: boolean;
  /** Rolling summary of older, dropped turns. */
  summary?: string;
  /** Inbox: the agent's own last results, oldest first (only the last OWN_RESULTS_KEPT are shown). */
  ownRecent: string[];
  /** Inbox: outputs that triggered this dispatch; `from: 'parent'` is the task start. */
  triggers: { from: string; text: string }[];
  /** Thread mode: the shared thread, oldest first (only the last THREAD_ENTRIES_KEPT are shown). */
  thread: ThreadEntry[];
  notes: PromptNote[];
}

/**
 * Every user-visible string of agent prompts, in one place so tests pin them.
 * @internal exported for tests
 */
export const PROMPT_TEXTS = {
  identity: (agent: string, graph: string, topology: string): string =>
    `You are the agent "${agent}" in the graph "${graph}" (${topology}).`,
  customTopology: 'custom flow',
  receivesFrom: (sources: string): string => `You receive work from: ${sources}.`,
  taskSource: 'the task',
  passesTo: (targets: string): string => `You pass your output to: ${targets}.`,
  noTargets: 'You pass your output to no other agent.',
  conditionalTag: 'conditional',
  exitAgent: 'You are an exit agent: your result can complete the graph.',
  notExitAgent: 'You are not an exit agent: your result goes on to other agents.',
  position: (round: number, wave: number): string => `Round ${round}, wave ${wave}.`,
  positionInLoop: (round: number, wave: number, k: number, n: number): string =>
    `Round ${round}, wave ${wave}, iteration ${k}/${n}.`,
  inboxView: 'You see the task, your own last results and the outputs that triggered this turn.',
  teamMembers: (others: string): string => `You share one conversation with: ${others}.`,
  swarmTurn: 'You keep the turn until you hand it over with one of your transfer tools; your reply goes to the whole team.',
  selectorTurn: 'After each turn a selector chooses who speaks next; your reply goes to the whole team.',
  handoffChoice: (targets: string): string =>
    `To choose who works next, call one of your transfer tools (${targets}); without a transfer, your output goes on as above.`,
  threadView: 'You see the task and the shared thread of agent outputs, oldest first.',
  collaborationOpen: '<collaboration>',
  collaborationClose: '</collaboration>',
  resultContract: [
    '<result_contract>',
    'Put your final answer inside a fenced ```result block. Everything outside the block is treated as working notes.',
  ].join('\n'),
  /**
   * The contract of an agent with tools: the tools come first, and the final answer is simply the
   * reply without a tool call (a fenced result block beside tools made real models answer without
   * calling any: BENCHMARKS.md, "Prompt quality").
   */
  toolsContract: [
    '<result_contract>',
    'You have tools: use them to do the work. Call a tool through the tool-calling interface (a function call), never by writing the call as text in your reply.',
    'Call tools one step at a time, as many as you need. When you are done, reply without calling a tool: that reply is your final answer.',
  ].join('\n'),
  /** No example number: a number in the instruction (once `85`, the demo's threshold) is what small models copy. */
  scoreContract: 'End your final answer with a line `score: <0-100>`: your score, a whole number from 0 to 100.',
  /** The output schema, from the first call: the final answer is the JSON alone, as the schema retries ask too. */
  outputContract: (schema: string) =>
    [
      '<output_format>',
      'Your final answer is one JSON object that matches this JSON Schema. Reply with the JSON object alone: no code fence, no other text.',
      schema,
      '</output_format>',
    ].join('\n'),
  /**
   * The contract of an agent that can transfer but has no other tools: a transfer is a function call,
   * and the answer is the reply (a fenced result block beside tools made real models call none).
   */
  handoffContract: [
    '<result_contract>',
    'Reply with your answer. To hand the work to another agent instead, call its transfer tool through the tool-calling interface (a function call), never by writing the call as text.',
  ].join('\n'),
  resultContractClose: '</result_contract>',
  taskHeading: '## Task',
  summaryHeading: '## Summary of earlier turns',
  ownHeading: '## Your previous results (oldest first)',
  ownEntry: (i: number, latest: boolean): string => `### Your result ${i}${latest ? ' (latest)' : ''}`,
  triggersHeading: '## Outputs that triggered this turn',
  fromAgent: (agent: string): string => `### From ${agent}`,
  fromParent: '### From the orchestrator',
  threadHeading: '## Shared thread (oldest first)',
  threadEntry: (agent: string, self: boolean): string => `### ${agent}${self ? ' (you)' : ''}`,
  /** The heading of a transfer, a question to the user or an answer, after `### <agent>[ (you)]`. */
  threadEvent: {
    /** `(you)` on the one handed the work: a small model that read only the name took the handoff as its own to make. */
    handoff: (to: string, self: boolean): string => `, handing off to ${to}${self ? ' (you)' : ''}`,
    question: (): string => ', asking the user',
    answer: (to: string, self: boolean): string => `, answering ${to}${self ? ' (you)' : ''}`,
  },
  /**
   * Closes the answer note when the thread's last entry answers this agent's question: with the
   * answer only in the thread, a small model asked the same question again (docs/teams.md, "Handoffs").
   */
  actOnAnswer: 'The user answered your question above. Act on this answer now and give your final reply; do not ask again.',
  notesHeading: '## Notes for this turn',
  noteLabels: {
    user_message: 'Message from the user',
    human_answer: 'Answer from a human',
    approval_note: 'Approval note from a human',
    reject_reason: 'Your previous result was rejected. Reason',
    goal_framework: 'Goal',
    goal_continuation: 'Goal continuation',
    schema_retry: 'Output format correction',
    handoff: 'Handed off to you, with this message',
    transfer_refused: 'Transfers not made',
  } satisfies Record<PromptNoteKind, string>,
  noteHeading: (label: string, from?: string): string => `### ${label}${from ? ` (from ${from})` : ''}`,
  unknownAgent: (agent: string): string => `buildAgentMessages: unknown agent "${agent}"`,
} as const;

/** Builds the system and user messages of one agent dispatch (layout pinned by prompts tests). */
export function buildAgentMessages(input: AgentPromptInput): ChatMessage[] {
  const agent = input.graph.agents[input.agent];
  if (!agent) throw new Error(PROMPT_TEXTS.unknownAgent(input.agent));
  const system = [agent.instructions.trim(), collaborationBlock(input), resultContract(input)]
    .filter((part) => part !== '')
    .join('\n\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: userSections(input).join('\n\n') },
  ];
}

/** The `<collaboration>` block: neighbours, exit status, position and stop conditions. */
function collaborationBlock(input: AgentPromptInput): string {
  const { graph, agent } = input;
  const incoming = graph.edges.filter((e) => e.to === agent);
  const outgoing = graph.edges.filter((e) => e.from === agent && !e.exit);
  const exits = graph.edges.filter((e) => e.from === agent && e.exit);
  const lines = [
    PROMPT_TEXTS.collaborationOpen,
    PROMPT_TEXTS.identity(agent, graph.name, graph.topology ?? PROMPT_TEXTS.customTopology),
  ];
  const targets = graph.agents[agent].handoffs ?? [];
  if (graph.topology === 'swarm' || graph.selector) {
    lines.push(
      PROMPT_TEXTS.teamMembers(graph.nodes.filter((n) => n !== agent).join(', ')),
      graph.selector ? PROMPT_TEXTS.selectorTurn : PROMPT_TEXTS.swarmTurn,
    );
  } else {
    if (incoming.length > 0) lines.push(PROMPT_TEXTS.receivesFrom(incoming.map((e) => edgeEnd(e, e.from)).join(', ')));
    lines.push(
      outgoing.length > 0 ? PROMPT_TEXTS.passesTo(outgoing.map((e) => edgeEnd(e, e.to)).join(', ')) : PROMPT_TEXTS.noTargets,
      exits.length > 0 ? PROMPT_TEXTS.exitAgent : PROMPT_TEXTS.notExitAgent,
    );
    if (targets.length > 0) lines.push(PROMPT_TEXTS.handoffChoice(targets.map(transferToolName).join(', ')));
  }
  lines.push(
    input.maxIterations > 0
      ? PROMPT_TEXTS.positionInLoop(input.round, input.wave, input.iteration, input.maxIterations)
      : PROMPT_TEXTS.position(input.round, input.wave),
    graph.context === 'thread' ? PROMPT_TEXTS.threadView : PROMPT_TEXTS.inboxView,
  );
  const stop = input.stopConditions ?? [];
  for (const line of (typeof stop === 'string' ? [stop] : stop).flatMap((l) => l.split('\n'))) {
    if (line.trim() !== '') lines.push(line.trim());
  }
  lines.push(PROMPT_TEXTS.collaborationClose);
  return lines.join('\n');
}

/** One neighbour as shown in the block: its name (`the task` for parent) and its edge's tags. */
function edgeEnd(edge: Edge, node: string): string {
  const name = node === PARENT ? PROMPT_TEXTS.taskSource : node;
  const tags = [edge.label, edge.when ? PROMPT_TEXTS.conditionalTag : undefined].filter(
    (t): t is string => t !== undefined && t !== '',
  );
  return tags.length > 0 ? `${name} (${tags.join(', ')})` : name;
}

/**
 * How the agent gives its result: for an exit agent of a role with an output schema, the JSON alone
 * (the schema in full); for an agent with tools, the reply without a tool call; otherwise a fenced
 * result block. A `score_gte` reader also ends its answer with `score: <0-100>`.
 */
function resultContract(input: AgentPromptInput): string {
  const { graph } = input;
  const agent = graph.agents[input.agent];
  const schema = outputSchemaFor(graph, input.agent);
  if (schema) return PROMPT_TEXTS.outputContract(JSON.stringify(schema));
  const contract = agent.tools.length > 0 ? PROMPT_TEXTS.toolsContract : agent.handoffs?.length ? PROMPT_TEXTS.handoffContract : PROMPT_TEXTS.resultContract;
  const lines: string[] = [contract];
  if (input.scoreContract) lines.push(PROMPT_TEXTS.scoreContract);
  lines.push(PROMPT_TEXTS.resultContractClose);
  return lines.join('\n');
}

/**
 * The output schema an agent's final answer must match: the role's `output.schema`, for an agent with
 * an exit edge (a final agent is one that exits); undefined for the others.
 */
export function outputSchemaFor(graph: CompiledGraph, agent: string): Record<string, unknown> | undefined {
  if (!graph.output) return undefined;
  return graph.edges.some((e) => e.from === agent && e.exit) ? graph.output.schema : undefined;
}

/** The user message's sections, in a fixed order: task, summary, history, notes. */
function userSections(input: AgentPromptInput): string[] {
  const sections = [`${PROMPT_TEXTS.taskHeading}\n${input.task}`];
  if (input.summary !== undefined && input.summary !== '') {
    sections.push(`${PROMPT_TEXTS.summaryHeading}\n${input.summary}`);
  }
  let notes = input.notes;
  if (input.graph.context === 'thread') {
    const turn = turnStart(input.thread.slice(-THREAD_ENTRIES_KEPT), input.agent);
    notes = [...turn.notes, ...notes];
    sections.push(
      section(
        PROMPT_TEXTS.threadHeading,
        turn.thread.map((e) => `${threadHeading(e, input.agent)}\n${e.text}`),
      ),
    );
  } else {
    const own = input.ownRecent.slice(-OWN_RESULTS_KEPT);
    sections.push(
      section(
        PROMPT_TEXTS.ownHeading,
        own.map((text, i) => `${PROMPT_TEXTS.ownEntry(i + 1, i === own.length - 1)}\n${text}`),
      ),
      section(
        PROMPT_TEXTS.triggersHeading,
        renderedTriggers(input).map(
          (t) => `${t.from === PARENT ? PROMPT_TEXTS.fromParent : PROMPT_TEXTS.fromAgent(t.from)}\n${t.text}`,
        ),
      ),
    );
  }
  sections.push(notesSection(notes));
  return sections.filter((s) => s !== '');
}

/**
 * The thread as `agent` reads it, and the notes of what gave it this turn when the thread's last
 * entry is addressed to it (docs/teams.md, "Handoffs"): a transfer to it is this turn's `handoff`
 * note and leaves the thread (a small model that read the transfer as a thread entry made it again,
 * to itself: transfer_to_<its own name>); an answer to its question stays after the question and is
 * also an `human_answer` note that says to act on it (with the answer only in the thread, it asked again).
 */
function turnStart(thread: ThreadEntry[], agent: string): { thread: ThreadEntry[]; notes: PromptNote[] } {
  const last = thread[thread.length - 1];
  if (last?.to !== agent) return { thread, notes: [] };
  if (last.kind === 'handoff') return { thread: thread.slice(0, -1), notes: [{ kind: 'handoff', text: last.text, from: last.agent }] };
  if (last.kind === 'answer') return { thread, notes: [{ kind: 'human_answer', text: `${last.text}\n\n${PROMPT_TEXTS.actOnAnswer}`, from: last.agent }] };
  return { thread, notes: [] };
}

/** A thread entry's `###` heading as `agent` reads it: who wrote it, and what happened. */
export function threadHeading(entry: ThreadEntry, agent: string): string {
  const head = PROMPT_TEXTS.threadEntry(entry.agent, entry.agent === agent);
  const to = entry.to ?? '';
  switch (entry.kind) {
    case 'handoff':
      return head + PROMPT_TEXTS.threadEvent.handoff(to, to === agent);
    case 'question':
      return head + PROMPT_TEXTS.threadEvent.question();
    case 'answer':
      return head + PROMPT_TEXTS.threadEvent.answer(to, to === agent);
    default:
      return head;
  }
}

/** The notes of a dispatch under their heading, each labelled; '' when there are none. */
export function notesSection(notes: readonly PromptNote[]): string {
  return section(
    PROMPT_TEXTS.notesHeading,
    notes.map((n) => `${PROMPT_TEXTS.noteHeading(PROMPT_TEXTS.noteLabels[n.kind], n.from)}\n${n.text}`),
  );
}

/**
 * The triggers an inbox prompt shows: a `parent` trigger that repeats the task is left out, since
 * the task section already carries it.
 */
export function renderedTriggers(input: AgentPromptInput): { from: string; text: string }[] {
  return input.triggers.filter((t) => !(t.from === PARENT && t.text === input.task));
}

function section(heading: string, entries: string[]): string {
  return entries.length === 0 ? '' : `${heading}\n\n${entries.join('\n\n')}`;
}

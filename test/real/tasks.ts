/**
 * The tasks of the real-model suite (`npm run test:real`, docs in test/real/main.ts): the examples,
 * and small tool, output-schema and goal tasks, each with what the model was asked to do and how to
 * tell whether it did. A task is a role file (or an inline role) plus a check of the run's result and
 * transcript; the suite runs each against a real OpenAI-compatible model.
 */
import * as path from 'node:path';
import type { RunResult } from '../../src/core/ending/result';
import type { TranscriptStep } from '../../src/core/state/state';

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');

/** What one run is checked for: whether the model did what the prompt asked, and a note. */
export interface Verdict {
  ok: boolean;
  note: string;
}

/** One task of the suite. */
export interface RealTask {
  /** Short id, also the group in the report (`tools`, `schema`, …). */
  id: string;
  group: 'example' | 'tools' | 'schema' | 'goal' | 'teams';
  /** What the task asks of the model, for the report. */
  asks: string;
  /** A role file under examples/, or an inline role. */
  role: { file: string } | { yaml: string };
  task?: string;
  /** Whether the worker needs examples/tools.yaml. */
  tools?: boolean;
  /** The human's answer to each request the run opens (a transfer to the user): the suite sends it. */
  answer?: string;
  check(result: RunResult, transcript: TranscriptStep[]): Verdict;
}

const ended = (r: RunResult) => `${r.status}/${r.reason}`;
const schemaRetries = (t: TranscriptStep[]) => t.filter((s) => s.kind === 'schema_retry').length;

/** A run that ends completed for one of `reasons`. */
function endsWith(reasons: string[]): RealTask['check'] {
  return (r) => ({ ok: r.status === 'completed' && reasons.includes(r.reason), note: ended(r) });
}

/** Every example but the tools file, each expected to end the way its file says. */
export const EXAMPLE_TASKS: RealTask[] = [
  { id: 'pipeline', group: 'example', asks: 'three agents pass work along and the last exits', role: { file: 'pipeline.yaml' }, check: endsWith(['exit']) },
  { id: 'star', group: 'example', asks: 'parallel specialists each answer', role: { file: 'star.yaml' }, check: endsWith(['exit']) },
  { id: 'custom-flow', group: 'example', asks: 'a join of two branches', role: { file: 'custom-flow.yaml' }, check: endsWith(['exit']) },
  { id: 'hybrid', group: 'example', asks: 'guarded edges route by the result', role: { file: 'hybrid.yaml' }, check: endsWith(['exit', 'result_match', 'max_iterations']) },
  { id: 'round-robin', group: 'example', asks: 'speakers take turns on a shared thread', role: { file: 'round-robin.yaml' }, check: (r) => ({ ok: r.status !== 'failed', note: ended(r) }) },
  {
    id: 'review-loop',
    group: 'example',
    asks: 'the critic scores drafts until one reaches 85',
    role: { file: 'review-loop.yaml' },
    check: (r, t) => {
      const scores = t.filter((s) => s.agent === 'critic').map((s) => /score:\s*(\d+)/i.exec(s.text)?.[1] ?? '?');
      return { ok: r.status === 'completed' || r.status === 'exhausted', note: `${ended(r)}; critic scores ${scores.join(', ') || 'none'}` };
    },
  },
  {
    id: 'research-with-tools',
    group: 'tools',
    asks: 'the researcher calls its tools before answering',
    role: { file: 'research-with-tools.yaml' },
    tools: true,
    check: (r) => ({ ok: r.status !== 'failed' && (r.usage.toolCalls?.total ?? 0) > 0, note: `${ended(r)}; ${r.usage.toolCalls?.total ?? 0} tool calls` }),
  },
];

const transfers = (t: TranscriptStep[]) => t.flatMap((s) => (s.handoff ? [`${s.agent}→${s.handoff.to}`] : []));

/**
 * Team tasks (docs/teams.md): handoffs must be made through the transfer tools, and a selector's
 * first answer must name a valid speaker.
 */
export const TEAM_TASKS: RealTask[] = [
  {
    id: 'triage-swarm',
    group: 'teams',
    asks: 'triage transfers a billing request to billing, which answers and ends with TERMINATE',
    role: { file: 'triage-swarm.yaml' },
    answer: 'The invoice is INV-0342; both charges were 49 EUR on March 3.',
    check: (r, t) => {
      const made = transfers(t);
      return { ok: made[0] === 'triage→billing', note: `${ended(r)}; transfers ${made.join(', ') || 'none'}` };
    },
  },
  {
    id: 'route-by-handoff',
    group: 'teams',
    asks: 'a router transfers a technical request to the right one of two agents',
    role: {
      yaml: `
name: route
model: { timeout_ms: 120000, max_tokens: 300 }
agents:
  router:
    instructions: You route support requests. Transfer each request to the agent that handles it, with a one-line summary as the message.
    handoffs: edges
  billing: { description: "Handles invoices, charges and refunds", instructions: Answer billing questions in two sentences. }
  tech: { description: "Fixes errors, crashes and logins", instructions: Answer technical questions in two sentences. }
collaboration:
  flow: [parent -> router, router -> billing, router -> tech, billing -> parent, tech -> parent]
`,
    },
    task: 'The app crashes with error E42 every time I open the settings page.',
    check: (r, t) => {
      const made = transfers(t);
      return { ok: made[0] === 'router→tech', note: `${ended(r)}; transfers ${made.join(', ') || 'none'}` };
    },
  },
  {
    id: 'selector-team',
    group: 'teams',
    asks: 'the selector names a valid speaker on its first attempt each turn',
    role: { file: 'selector-team.yaml' },
    check: (r, t) => {
      const turns = t.filter((s) => s.selected);
      const first = turns.filter((s) => s.selected!.attempts <= 1 && !s.selected!.fallback).length;
      return { ok: turns.length > 0 && first === turns.length && r.status !== 'failed', note: `${ended(r)}; first-attempt choices ${first}/${turns.length}; speakers ${t.map((s) => s.agent).join(', ')}` };
    },
  },
];

/** Tool tasks: the model must call a tool through the tools interface, then answer. */
export const TOOL_TASKS: RealTask[] = [
  {
    id: 'count-words',
    group: 'tools',
    asks: 'call word_count on a given text and report the number',
    tools: true,
    role: {
      yaml: `
name: count-words
agents:
  counter:
    instructions: You count words with the word_count tool and report the count.
    tools: [word_count]
    timeout_ms: 120000
collaboration: { topology: pipeline, agents: [counter] }
`,
    },
    task: 'How many words are in this text: "durable workflows survive crashes and wait for humans"?',
    check: (r) => ({ ok: (r.usage.toolCalls?.total ?? 0) > 0 && /\b7\b|seven/i.test(r.finalText), note: `${ended(r)}; ${r.usage.toolCalls?.total ?? 0} tool calls; ${r.finalText.slice(0, 60).replace(/\s+/g, ' ')}` }),
  },
  {
    id: 'read-a-note',
    group: 'tools',
    asks: 'list the allowed folder, read a file and quote it',
    tools: true,
    role: {
      yaml: `
name: read-a-note
agents:
  reader:
    instructions: You answer questions about files. Use the files tools to find and read them.
    tools: [files.list_allowed_directories, files.list_directory, files.read_text_file]
    timeout_ms: 120000
collaboration: { topology: pipeline, agents: [reader] }
`,
    },
    task: 'What does the file README.md in the allowed folder say? Quote its first line.',
    check: (r) => ({ ok: (r.usage.toolCalls?.total ?? 0) > 0, note: `${ended(r)}; ${r.usage.toolCalls?.total ?? 0} tool calls` }),
  },
];

/** Output-schema tasks: the first reply must already be valid JSON for the schema. */
export const SCHEMA_TASKS: RealTask[] = [
  {
    id: 'extract-book',
    group: 'schema',
    asks: 'extract a JSON object from a sentence, valid on the first call',
    role: {
      yaml: `
name: extract-book
agents:
  extractor:
    instructions: You extract facts about books from text.
    timeout_ms: 120000
collaboration: { topology: pipeline, agents: [extractor] }
output:
  schema:
    type: object
    properties:
      title: { type: string }
      author: { type: string }
      year: { type: integer }
    required: [title, author, year]
    additionalProperties: false
  max_retries: 2
`,
    },
    task: 'Dune is a science fiction novel by Frank Herbert, published in 1965.',
    check: (r, t) => ({ ok: r.outputValid === true && schemaRetries(t) === 0, note: `${ended(r)}; valid ${String(r.outputValid)}; ${schemaRetries(t)} retries` }),
  },
  {
    id: 'triage-ticket',
    group: 'schema',
    asks: 'classify a ticket as JSON with an enum and a list, valid on the first call',
    role: {
      yaml: `
name: triage-ticket
agents:
  triager:
    instructions: You triage support tickets.
    timeout_ms: 120000
collaboration: { topology: pipeline, agents: [triager] }
output:
  schema:
    type: object
    properties:
      severity: { enum: [low, medium, high] }
      component: { type: string }
      steps: { type: array, items: { type: string } }
    required: [severity, component, steps]
  max_retries: 2
`,
    },
    task: 'Ticket: "Since this morning every login fails with a 500 error on the web app; nobody can sign in."',
    check: (r, t) => ({ ok: r.outputValid === true && schemaRetries(t) === 0, note: `${ended(r)}; valid ${String(r.outputValid)}; ${schemaRetries(t)} retries` }),
  },
];

/** Goal tasks: the agent must report with the goal tool. */
export const GOAL_TASKS: RealTask[] = [
  {
    id: 'goal-haiku',
    group: 'goal',
    asks: 'write a haiku and report the goal completed with the goal tool',
    role: {
      yaml: `
name: goal-haiku
agents:
  poet:
    instructions: You write short poems.
    tools: [goal]
    timeout_ms: 120000
collaboration: { topology: pipeline, agents: [poet] }
goal:
  objective: Write one haiku about autumn rain.
  success_criteria: Three lines of 5, 7 and 5 syllables.
  max_turns: 2
`,
    },
    task: 'Write a haiku about autumn rain.',
    check: (r) => ({ ok: r.reason === 'goal_completed', note: ended(r) }),
  },
];

/** The path of an example role file. */
export function examplePath(file: string): string {
  return path.join(EXAMPLES, file);
}

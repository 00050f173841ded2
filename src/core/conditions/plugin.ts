/**
 * The condition plugin: everything about one kind of stop condition, in one object. Every built-in
 * condition (`builtin/*.ts`) is one, registered like a user's `registerCondition` plugin; a user's
 * plugin needs only the first six members, and may use the optional hooks below them. Plugin code
 * must be pure and deterministic: it runs in the workflow sandbox and is replayed.
 */
import { z } from 'zod';
import type { Path } from '../config/issues';
import type { TerminationView } from './view';

/** What `parse` returns: the params, or a message (at `path` under the key, when given). */
export type ParseResult<P> = { ok: true; params: P } | { ok: false; message: string; path?: Path };

/** An agent named in a condition's YAML value, at `path` under the key (e.g. `['sources', 1]`). */
interface NamedAgent {
  agent: string;
  path: Path;
}

/** A convergence judgement a condition needs after each result of `agent`. */
export interface JudgeTarget {
  agent: string;
  criteria?: string;
}

/**
 * How a condition bounds loops, for the loop cap derived when none is configured:
 * `iterations`: it holds once a loop's counter reaches `n`; `messages`: once the round has `n`
 * agent results.
 */
export type LoopBound = { kind: 'iterations'; n: number } | { kind: 'messages'; n: number };

/**
 * An event latch: set during a round when an agent result fires it, and read back by `holds` as
 * `view.latches[key(params)] === true`, so the event stays seen for the rest of the round.
 */
interface Latch<P> {
  /** The latch's key in `view.latches`; unique across conditions (start it with the condition key). */
  key(params: P): string;
  /** Whether this agent's result (normalized) fires the latch. */
  fires(params: P, agent: string, normalizedText: string): boolean;
}

/** A regular expression a condition runs on agent output: its source and flags, at `path` under the key. */
export interface ConditionPattern {
  path: Path;
  source: string;
  flags: string;
}

/** A condition type usable from YAML under its key. */
export interface ConditionPlugin<P = unknown> {
  /**
   * Validate the YAML value under the key and return the params. With a `schema`, the value has
   * passed it and `parse` receives the schema's output.
   */
  parse(value: unknown): ParseResult<P>;
  /** Whether the condition holds on the round's view. A plugin that throws counts as not holding. */
  holds(params: P, view: TerminationView): boolean;
  /** Stop reason reported when this condition ends the run. */
  reason: string;
  /** Priority of the reason (lower wins when several conditions hold): 0 converged … 5 error. */
  priority: number;
  /** Status of the reason; default `completed`. */
  status?: 'completed' | 'exhausted';
  /** Short description for the agents' prompts (and pictures, without a `label`), e.g. `2 approvals`. */
  describe?(params: P): string;

  /** zod schema of the YAML value: every issue is reported, located, before `parse` runs. */
  schema?: z.ZodType;
  /** The condition may also be written as the string `key(value)`, e.g. `"signal_observed(done)"`. */
  callForm?: boolean;
  /** Agents named in the raw YAML value, read even when it is invalid, so unknown names are reported with its other errors. */
  agents?(value: unknown): NamedAgent[];
  /** The `reasonText` when this condition ends the run; default `<reason>: <description>`. */
  reasonText?(params: P, view: TerminationView): string;
  /** Label in pictures of the graph (`troupe graph`), with more detail than `describe`. */
  label?(params: P): string;
  /** What the user can do when this condition ended the run, printed after the CLI's final line. */
  hint?: string;
  /** The condition is a hard limit: it ends the run even while humans are awaited or the goal is paused. */
  hard?: boolean;
  /** Judgements the run must ask the judge for after each result of these agents. */
  judgeTargets?(params: P): JudgeTarget[];
  /** How many recent result hashes per agent the view must keep for this condition. */
  hashWindow?(params: P): number | undefined;
  /** Active round time (ms) at which a durable timer re-evaluates the termination expression mid-wave. */
  timerMs?(params: P): number | undefined;
  /** Agents that must end their results with `score: N` (their prompts say so). */
  scoreReaders?(params: P): string[];
  /** Whether results must also be kept with their line structure (`view.latest[agent].lines`). */
  readsLines?(params: P): boolean;
  /** An event the round latches (see {@link Latch}). */
  latch?: Latch<P>;
  /** How this condition bounds loops, for the derived loop cap. */
  loopBound?(params: P): LoopBound | undefined;
  /**
   * The regular expressions it runs on agent output: validation rejects those that can backtrack
   * catastrophically (docs/semantics.md, "Bounds on hostile input"), with errors located at their paths.
   */
  patterns?(params: P): ConditionPattern[];
}

/**
 * `schema` and `parse` of a plugin whose YAML value a zod schema checks: `build` receives the
 * schema's typed output and returns the params.
 */
export function fromSchema<S extends z.ZodType, P>(
  schema: S,
  build: (data: z.output<S>) => P,
): Pick<ConditionPlugin<P>, 'schema' | 'parse'> {
  return { schema, parse: (data) => ({ ok: true, params: build(data as z.output<S>) }) };
}

/** One name or a non-empty list of names (`source_match`, `tool_called`), read as a list. */
export function oneOrMoreNames(): z.ZodType<string[]> {
  const name = z.string().trim().min(1);
  return z.union([name, z.array(name).min(1)]).transform((d) => (typeof d === 'string' ? [d] : d));
}

/** A name as the schema would take it, trimmed; undefined for anything else (its type error is reported instead). */
export function nameIn(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v.trim() : undefined;
}

/** A field of a raw YAML mapping; undefined when `v` is not one. */
export function fieldOf(v: unknown, field: string): unknown {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[field] : undefined;
}

/** The agent a condition's `agent` field names, located at `agent` (read even from an invalid item). */
export function agentField(value: unknown): Array<{ agent: string; path: Path }> {
  const agent = nameIn(fieldOf(value, 'agent'));
  return agent === undefined ? [] : [{ agent, path: ['agent'] }];
}

/**
 * The completion-check pipeline: when a round is about to end normally, the goal
 * check runs, then the output-schema check, then checks added with `registerCompletionCheck`, in
 * registration order. The first *continue* wins; a check that throws counts as *done* with a
 * warning; a *done* does not short-circuit. Pure and
 * synchronous (no awaits, so no Temporal cancellation can be swallowed); plain data in and out.
 */
import { ENDS } from '../ending/decide';
import type { RunEnd } from '../ending/result';
import { goalCheck, type GoalState } from '../goals';
import { outputCheck, type FinalResult, type OutputCheckResult, type OutputConfig, type OutputVerdict } from '../output/check';
import type { OutputValidator } from '../output/validator';

/** What every check sees: plain data from the workflow state at the end of a round. */
export interface CompletionContext {
  /** Workflow time (ms). */
  now: number;
  round: number;
  /** The status the round would end with. */
  status: 'completed' | 'exhausted';
  reason: string;
  /** The goal, as updated by the checks before this one. */
  goal?: GoalState;
  finalResults: FinalResult[];
  output?: OutputConfig;
  /** Schema retries used so far, by agent. */
  outputAttempts: Record<string, number>;
}

/**
 * A check's verdict. `continue` with `agents` re-dispatches those agents alone with the prompt (like
 * a schema retry); without `agents` a new round starts with the prompt to each wave-1 agent.
 */
export type CheckVerdict = { kind: 'done' } | { kind: 'continue'; prompt: string; agents?: string[] };

/** A completion check: pure and deterministic (it runs in the workflow sandbox). */
export interface CompletionCheck {
  name: string;
  check(ctx: Readonly<CompletionContext>): CheckVerdict;
}

/** How the run goes on when a check says continue. */
type ContinueAction =
  | { action: 'new_round'; prompt: string }
  | { action: 'redispatch'; targets: Array<{ agent: string; prompt: string }> };

/** Fields every outcome carries: the state to store back and the warnings to record. */
interface OutcomeState {
  /** The goal after the checks (turnCount+1 on a continuation, `limit_reached` at a limit). */
  goal?: GoalState;
  /** Schema retries to store (cleared when the output check is done). */
  outputAttempts: Record<string, number>;
  warnings: string[];
}

/** The pipeline's outcome. */
type CompletionOutcome =
  | (OutcomeState & {
      kind: 'done';
      /** Set when the goal has finished (completed, blocked or a limit): the run's status and reason. */
      goalEnd?: RunEnd;
      /** Set when an output schema is configured and its check finished. */
      output?: OutputVerdict;
    })
  | (OutcomeState & { kind: 'continue'; by: string } & ContinueAction);

/** Names of the built-in checks (they run first and cannot be registered). */
const BUILTIN_CHECKS = ['goal', 'output'] as const;

/** Pipeline texts, so tests can pin them. */
const CHECK_TEXTS = {
  failed: (name: string, message: string) => `completion check ${name} failed: ${message}`,
  invalidName: (name: string) => `registerCompletionCheck: invalid name "${name}" (use [a-z][a-z0-9_-]*)`,
  badVerdict: 'returned neither {kind: "done"} nor {kind: "continue", prompt}',
  builtin: (name: string) => `registerCompletionCheck: "${name}" is a built-in check and cannot be replaced`,
} as const;

const registered = new Map<string, CompletionCheck>();

/** Add a completion check that runs after the built-ins, in registration order (re-registering replaces it in place). */
export function registerCompletionCheck(name: string, check: CompletionCheck['check']): void {
  if (!/^[a-z][a-z0-9_-]*$/.test(name)) throw new Error(CHECK_TEXTS.invalidName(name));
  if ((BUILTIN_CHECKS as readonly string[]).includes(name)) throw new Error(CHECK_TEXTS.builtin(name));
  registered.set(name, { name, check });
}

/**
 * The registered checks, in order.
 * @internal exported for tests
 */
export function registeredCompletionChecks(): CompletionCheck[] {
  return [...registered.values()];
}

/**
 * Test helper: forget every registered check.
 * @internal exported for tests
 */
export function clearCompletionChecks(): void {
  registered.clear();
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Run the checks at the end of a round: goal, output schema, then `extra` (default: the registered
 * checks). A goal at its limit becomes `limit_reached` and counts as done, so later checks still run.
 */
export function runCompletionChecks(
  ctx: CompletionContext,
  extra: CompletionCheck[] = registeredCompletionChecks(),
  validator?: OutputValidator,
): CompletionOutcome {
  const warnings: string[] = [];
  let goal = ctx.goal;
  let outputAttempts = ctx.outputAttempts;
  const state = (): OutcomeState => ({ ...(goal ? { goal } : {}), outputAttempts, warnings });

  if (goal) {
    try {
      const g = goalCheck(goal, ctx.now);
      if (g.kind === 'continue') {
        return { ...state(), goal: g.goal, kind: 'continue', by: 'goal', action: 'new_round', prompt: g.prompt };
      }
      if (g.kind === 'stop') goal = g.goal;
    } catch (err) {
      warnings.push(CHECK_TEXTS.failed('goal', message(err)));
    }
  }

  let output: Extract<CompletionOutcome, { kind: 'done' }>['output'];
  if (ctx.output) {
    try {
      const o: OutputCheckResult = outputCheck(ctx.finalResults, ctx.output, ctx.outputAttempts, validator);
      outputAttempts = o.attempts;
      if (o.kind === 'retry') {
        const targets = o.retries.map((r) => ({ agent: r.agent, prompt: r.prompt }));
        return { ...state(), kind: 'continue', by: 'output', action: 'redispatch', targets };
      }
      output = {
        ...(o.output !== undefined ? { output: o.output } : {}),
        outputValid: o.outputValid,
        ...(o.outputErrors ? { outputErrors: o.outputErrors } : {}),
      };
    } catch (err) {
      warnings.push(CHECK_TEXTS.failed('output', message(err)));
    }
  }

  const view: CompletionContext = { ...ctx, ...(goal ? { goal } : {}), outputAttempts };
  for (const c of extra) {
    try {
      const v = c.check(view);
      if (!isVerdict(v)) throw new Error(CHECK_TEXTS.badVerdict);
      if (v.kind === 'continue') return { ...state(), kind: 'continue', by: c.name, ...customAction(v) };
    } catch (err) {
      warnings.push(CHECK_TEXTS.failed(c.name, message(err)));
    }
  }

  const goalEnd = goal ? ENDS.goal(goal) : undefined;
  return { ...state(), kind: 'done', ...(goalEnd ? { goalEnd } : {}), ...(output ? { output } : {}) };
}

function isVerdict(v: unknown): v is CheckVerdict {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as { kind?: unknown; prompt?: unknown; agents?: unknown };
  if (r.kind === 'done') return true;
  return r.kind === 'continue' && typeof r.prompt === 'string' && (r.agents === undefined || Array.isArray(r.agents));
}

function customAction(v: Extract<CheckVerdict, { kind: 'continue' }>): ContinueAction {
  if (v.agents && v.agents.length > 0) {
    return { action: 'redispatch', targets: v.agents.map((agent) => ({ agent, prompt: v.prompt })) };
  }
  return { action: 'new_round', prompt: v.prompt };
}

/**
 * The output-schema completion check: each final agent's result is extracted as
 * JSON and validated alone; invalid ones are re-dispatched with a retry prompt (attempt k/N) until
 * `max_retries`, then the run ends with `outputValid: false` and the errors. Retry counts live in
 * workflow state (`attempts`), so they survive worker restarts and continue-as-new.
 */
import { extractJson } from '../text/json';
import { defaultOutputValidator, type OutputValidator } from './validator';
import { OUTPUT_TEXTS } from './texts';

/** The graph's output config (`CompiledGraph.output`). */
export interface OutputConfig {
  schema: Record<string, unknown>;
  maxRetries: number;
}

/** One final agent's result text. */
export interface FinalResult {
  agent: string;
  text: string;
}

/** The check's verdict on one final agent. */
type AgentOutputVerdict =
  | { agent: string; valid: true; value: unknown }
  | { agent: string; valid: false; errors: string[]; retryable: boolean };

/** One re-dispatch of an invalid final agent (a one-agent wave). */
interface OutputRetry {
  agent: string;
  attempt: number;
  maxRetries: number;
  errors: string[];
  prompt: string;
}

/**
 * The final verdict on a run's output, as the RunResult carries it: the value (one agent's, or an
 * object keyed by agent), whether it matched the schema, and the errors when it did not.
 */
export interface OutputVerdict {
  output?: unknown;
  outputValid: boolean;
  outputErrors?: string[];
}

/**
 * Outcome of the output check. `retry`: re-dispatch only the invalid agents with their prompts and
 * store `attempts`. `done`: the final verdict; `attempts` is cleared for the next round.
 */
export type OutputCheckResult =
  | { kind: 'retry'; agents: AgentOutputVerdict[]; retries: OutputRetry[]; attempts: Record<string, number> }
  | ({ kind: 'done'; agents: AgentOutputVerdict[]; attempts: Record<string, number> } & OutputVerdict);



function jsonNoun(schema: Record<string, unknown>): string {
  return schema.type === 'object' ? 'object' : schema.type === 'array' ? 'array' : 'value';
}

/**
 * The retry prompt (lines joined with `\n` plus a trailing `\n`): the attempt
 * header, one `- <path>: <message>` line per error, the schema as JSON, and "reply with only JSON".
 * @internal exported for tests
 */
export function outputRetryPrompt(
  schema: Record<string, unknown>,
  errors: string[],
  attempt: number,
  maxRetries: number,
): string {
  const noun = jsonNoun(schema);
  return [
    OUTPUT_TEXTS.check.retryHeader(attempt, maxRetries),
    '',
    OUTPUT_TEXTS.check.errorsHeader,
    ...errors.map((e) => `- ${e}`),
    '',
    OUTPUT_TEXTS.check.reformat(noun),
    '```json',
    JSON.stringify(schema, null, 2),
    '```',
    '',
    OUTPUT_TEXTS.check.onlyJson(noun),
    '',
  ].join('\n');
}

/** Check one agent's text: extract JSON, validate it; a schema that cannot compile is not retryable. */
function checkAgentOutput(
  result: FinalResult,
  schema: Record<string, unknown>,
  validator: OutputValidator = defaultOutputValidator,
): AgentOutputVerdict {
  const extracted = extractJson(result.text);
  if (!extracted.ok) return { agent: result.agent, valid: false, errors: [OUTPUT_TEXTS.check.noJson], retryable: true };
  const v = validator.validate(schema, extracted.value);
  switch (v.kind) {
    case 'valid':
      return { agent: result.agent, valid: true, value: extracted.value };
    case 'invalid':
      return { agent: result.agent, valid: false, errors: v.errors, retryable: true };
    case 'schema_error':
      return { agent: result.agent, valid: false, errors: [v.message], retryable: false };
    default: {
      const never: never = v;
      return never;
    }
  }
}

/**
 * Run the output check over the round's final agents. An invalid agent is retried while
 * `attempts[agent] + 1 <= maxRetries`; only invalid agents are retried. When nothing is retried the
 * result is final: `output` is the single agent's value, or an object keyed by agent (valid agents
 * only) when there are several; errors of several agents are prefixed with the agent name.
 */
export function outputCheck(
  finalResults: FinalResult[],
  output: OutputConfig,
  attempts: Record<string, number>,
  validator: OutputValidator = defaultOutputValidator,
): OutputCheckResult {
  if (finalResults.length === 0) {
    return { kind: 'done', agents: [], outputValid: false, outputErrors: [OUTPUT_TEXTS.check.noFinalResult], attempts: {} };
  }
  const agents = finalResults.map((r) => checkAgentOutput(r, output.schema, validator));
  const retries: OutputRetry[] = [];
  const nextAttempts = { ...attempts };
  for (const verdict of agents) {
    if (verdict.valid || !verdict.retryable) continue;
    const attempt = (attempts[verdict.agent] ?? 0) + 1;
    if (attempt > output.maxRetries) continue;
    nextAttempts[verdict.agent] = attempt;
    const prompt = outputRetryPrompt(output.schema, verdict.errors, attempt, output.maxRetries);
    retries.push({ agent: verdict.agent, attempt, maxRetries: output.maxRetries, errors: verdict.errors, prompt });
  }
  if (retries.length > 0) return { kind: 'retry', agents, retries, attempts: nextAttempts };
  return { kind: 'done', agents, ...finalOutput(agents), attempts: {} };
}

function finalOutput(agents: AgentOutputVerdict[]): OutputVerdict {
  const several = agents.length > 1;
  const errors: string[] = [];
  const values: Record<string, unknown> = {};
  for (const a of agents) {
    if (a.valid) values[a.agent] = a.value;
    else errors.push(...a.errors.map((e) => (several ? OUTPUT_TEXTS.check.agentError(a.agent, e) : e)));
  }
  const outputValid = errors.length === 0;
  const single = agents[0];
  const output = several ? values : single.valid ? single.value : undefined;
  return {
    ...(output !== undefined ? { output } : {}),
    outputValid,
    ...(outputValid ? {} : { outputErrors: errors }),
  };
}

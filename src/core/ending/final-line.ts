/**
 * The final line `troupe run` prints:
 * one distinct, actionable sentence per status and reason, built from the RunResult alone.
 */
import { hintFor, type RunStatus, type StopReason } from './reasons';
import { budgetHint, isBudgetReason, usdSpentText } from '../budgets/ledger';
import { plural } from '../text/format';

/** Failure details of a failed run, plus who failed when known. */
interface FinalDiagnostics {
  status?: number;
  requestId?: string;
  message: string;
  /** The agent whose call failed. */
  agent?: string;
  kind?: 'agent' | 'judge' | 'compaction' | 'selector';
}

/**
 * The parts of a RunResult the final line reads.
 * @internal exported for tests
 */
export interface FinalLineInput {
  status: RunStatus;
  reason: StopReason;
  reasonText: string;
  usage: { agentCalls: number; costUsd: number; totalTokens: number };
  rounds: number;
  diagnostics?: FinalDiagnostics;
  /** False when the final result does not match `output.schema`. */
  outputValid?: boolean;
}


/** Every final-line string, so tests pin them. */
const STATUS_TEXTS = {
  progress: (rounds: number, calls: number) => `after ${plural(rounds, 'round')}, ${plural(calls, 'agent call')}`,
  cost: (usd: number, tokens: number) =>
    usd > 0 ? ` (${plural(tokens, 'token')}, ${usdSpentText(usd)})` : ` (${plural(tokens, 'token')})`,
  userStop: (calls: number) => `cancelled: stopped on request (troupe stop) after ${plural(calls, 'agent call')}; partial results are kept`,
  userAbort: (calls: number) =>
    `cancelled: workflow cancelled (troupe cancel) after ${plural(calls, 'agent call')}; in-flight calls were aborted, partial results are kept`,
  blocked: (detail: string) => `blocked: ${detail}; resolve the blocker, then start a new run`,
  whoFailed: (d: FinalDiagnostics) => (d.agent ? `${d.kind && d.kind !== 'agent' ? `${d.kind} call for` : 'agent'} ${d.agent}` : 'an LLM call'),
  requestId: (id?: string) => (id ? ` (request id ${id})` : ''),
  httpHints: {
    400: 'check the model settings (name, max_tokens, temperature) for this endpoint',
    401: "check OPENAI_API_KEY (or the model's api_key_env)",
    403: 'check that the API key may use this model',
    404: 'check the model name and OPENAI_BASE_URL',
    422: 'check the model settings (name, max_tokens, temperature) for this endpoint',
  } as Readonly<Record<number, string>>,
  fatal: (who: string, d: FinalDiagnostics, hint?: string) =>
    `failed: ${who} got ${d.status !== undefined ? `HTTP ${d.status}` : `a fatal error: ${d.message}`}${STATUS_TEXTS.requestId(d.requestId)}${hint ? `; ${hint}` : ''}`,
  activityFailed: (who: string, d?: FinalDiagnostics) => {
    const facts = [d?.status !== undefined ? `HTTP ${d.status}` : '', d?.requestId ? `request id ${d.requestId}` : ''].filter(Boolean);
    return `failed: ${who} still failed after its retries${facts.length ? ` (${facts.join(', ')})` : ''}${d?.message ? `: ${d.message}` : ''}; check the endpoint (OPENAI_BASE_URL) and its availability`;
  },
  tokenWindow: (detail: string) => `failed: ${detail}; raise model.context_window or shorten the instructions and task`,
  breaker: (detail: string) => `failed: ${detail}; compaction failed 3 times in a row, check the compaction model's endpoint`,
  failed: (detail: string) => `failed: ${detail}`,
  invalidOutput: (detail: string, progress: string) =>
    `completed with an invalid output: ${detail} ${progress}; the final result does not match output.schema (errors below)`,
} as const;

/**
 * `reasonText` without its leading `reason: ` label (`result_match: critic score 90 >= 85` → `critic score 90 >= 85`).
 * @internal exported for tests
 */
export function reasonDetail(reason: string, reasonText: string): string {
  const prefix = `${reason}: `;
  const detail = reasonText.startsWith(prefix) ? reasonText.slice(prefix.length) : reasonText;
  return detail || reason;
}

/**
 * A run's end as `status/reason: detail`, the reason said once (`failed/activity_failed: agent writer
 * failed after 3 attempts: …`, not `…: activity_failed: agent writer …`): the end `troupe status` and
 * `troupe transcript` print.
 */
export function statusAndReason(end: { status: string; reason: string; reasonText: string }): string {
  const detail = reasonDetail(end.reason, end.reasonText);
  return detail === end.reason ? `${end.status}/${end.reason}` : `${end.status}/${end.reason}: ${detail}`;
}

function failedLine(r: FinalLineInput, detail: string): string {
  const d = r.diagnostics;
  switch (r.reason) {
    case 'fatal_error': {
      const diag = d ?? { message: detail };
      const hint = diag.status !== undefined ? STATUS_TEXTS.httpHints[diag.status] : undefined;
      return STATUS_TEXTS.fatal(STATUS_TEXTS.whoFailed(diag), diag, hint);
    }
    case 'activity_failed':
      return STATUS_TEXTS.activityFailed(d ? STATUS_TEXTS.whoFailed(d) : 'an LLM call', d ?? { message: detail });
    case 'token_window_exceeded':
      return STATUS_TEXTS.tokenWindow(detail);
    case 'compaction_circuit_breaker':
      return STATUS_TEXTS.breaker(detail);
    default:
      return STATUS_TEXTS.failed(detail);
  }
}

/** The one-line summary `troupe run` prints last: what happened, with figures, and what to do about it. */
export function finalLine(r: FinalLineInput): string {
  const detail = reasonDetail(r.reason, r.reasonText);
  const progress = STATUS_TEXTS.progress(r.rounds, r.usage.agentCalls) + STATUS_TEXTS.cost(r.usage.costUsd, r.usage.totalTokens);
  switch (r.status) {
    case 'completed':
      return r.outputValid === false ? STATUS_TEXTS.invalidOutput(detail, progress) : `completed: ${detail} ${progress}`;
    case 'exhausted': {
      const hint = hintFor(r.reason);
      return `exhausted: ${detail} ${progress}${hint ? `; ${hint}` : ''}`;
    }
    case 'budget_exceeded':
      return `stopped: ${r.reasonText}${isBudgetReason(r.reason) ? `; ${budgetHint({ reason: r.reason })}` : ''}`;
    case 'cancelled':
      return r.reason === 'user_abort' ? STATUS_TEXTS.userAbort(r.usage.agentCalls) : STATUS_TEXTS.userStop(r.usage.agentCalls);
    case 'blocked':
      return STATUS_TEXTS.blocked(detail);
    case 'limit_reached': {
      const hint = hintFor(r.reason);
      return `limit reached: ${detail} ${progress}${hint ? `; ${hint}` : ''}`;
    }
    case 'failed':
      return failedLine(r, detail);
    default: {
      const never: never = r.status;
      throw new Error(`finalLine: unknown status ${String(never)}`);
    }
  }
}

/**
 * The role.yaml schema. This zod schema is the single source of truth for the config:
 * the TypeScript types below are inferred from it. Pure: imported by the CLI and, through the
 * compiled graph, indirectly by the workflow.
 */
import { z } from 'zod';
import { REPLY_CAPS } from '../llm/reply-caps';
import { toolGlobIssue } from '../llm/tool-glob';
import { MAX_AGENTS, MAX_PARALLEL_TOOL_CALLS } from './limits';
import { CONFIG_MESSAGES as M } from './messages';

/** The role name: `[a-z0-9][a-z0-9-]*` (agent names follow the edge-string rule below). */
const ROLE_NAME_RE = /^[a-z0-9][a-z0-9-]*$/;
/** An agent name may not contain whitespace, `>` or `:` (the separators of the edge string form). */
export const AGENT_NAME_RE = /^[^\s>:]+$/;
/** Signal types, for `signal_observed` and the `signal` tool. */
export const SIGNAL_TYPE_RE = /^[a-z][a-z0-9_]*$/;

const positiveInt = z.number().int().positive();
/**
 * A loop cap (`collaboration.max_iterations`, the `max_iterations` condition): a whole number of
 * iterations, at least 1; a cap of 0 would stop a loop before its first revisit.
 */
export const LoopCapSchema = z.number().int(M.integerAtLeast(1)).min(1, M.integerAtLeast(1));

/** What a reply still cut by `max_tokens` does: `fail` ends the run `failed/truncated_output`, `accept` keeps it. */
const OnTruncatedSchema = z.enum(['fail', 'accept']);

/** `tool_choice`: `auto` (default) lets the model answer without a tool; `required` makes the first reply of each dispatch call one. */
const ToolChoiceSchema = z.enum(['auto', 'required']);

/**
 * `text_tool_calls`: `on` (default) runs a reply that is only a call written as text as that call;
 * `off` never reads one (docs/semantics.md, "Agent calls").
 */
const TextToolCallsSchema = z.enum(['on', 'off']);

/** `max_parallel_tool_calls`: 1 to {@link MAX_PARALLEL_TOOL_CALLS}. */
const MaxParallelToolCallsSchema = z.number().int(M.integerAtLeast(1)).min(1, M.integerAtLeast(1)).max(MAX_PARALLEL_TOOL_CALLS);

/** A reply cap in bytes (`max_reply_bytes`, `max_event_bytes`): a whole number from 4 KiB to `max` (core/llm/reply-caps.ts). */
const ReplyBytesSchema = (max: number) =>
  z.number().int(M.integerBetween(REPLY_CAPS.minBytes, max)).min(REPLY_CAPS.minBytes, M.integerBetween(REPLY_CAPS.minBytes, max)).max(max, M.integerBetween(REPLY_CAPS.minBytes, max));

const ModelSchema = z.strictObject({
  name: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: positiveInt.optional(),
  context_window: positiveInt.optional(),
  /** Per-model OpenAI-compatible endpoint; defaults to `OPENAI_BASE_URL`. */
  base_url: z.string().min(1).optional(),
  /** Name of the environment variable that holds this model's API key; default `OPENAI_API_KEY`. */
  api_key_env: z.string().min(1).optional(),
  /** Tool rounds of one dispatch before a last call with `tool_choice: none`; default 8. */
  max_tool_rounds: positiveInt.optional(),
  /** Tool calls of one reply that run; the rest get an error text; default 32. */
  max_parallel_tool_calls: MaxParallelToolCallsSchema.optional(),
  /** Start-to-close timeout of each call, for every agent (and the judge) without its own; default 30000. */
  timeout_ms: positiveInt.optional(),
  /** A reply still cut by `max_tokens` after one continuation: `fail` the run (default) or `accept` it. */
  on_truncated: OnTruncatedSchema.optional(),
  /** `required`: each dispatch's first reply must call a tool (agents with tools); default `auto`. */
  tool_choice: ToolChoiceSchema.optional(),
  /** Bytes one reply may bring, streamed or whole; past it the call fails, not retried; default 16 MiB. */
  max_reply_bytes: ReplyBytesSchema(REPLY_CAPS.maxReplyBytes).optional(),
  /** Bytes one server-sent line or event of a streamed reply may hold; default 4 MiB. */
  max_event_bytes: ReplyBytesSchema(REPLY_CAPS.maxEventBytes).optional(),
  /** `off`: a call written as text in a reply is never run as a call; default `on`. */
  text_tool_calls: TextToolCallsSchema.optional(),
});

const PriceSchema = z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
});

/** The tools every worker offers; the others come from the worker's tools file. */
export const BUILTIN_TOOLS = ['goal', 'signal'] as const;

/**
 * A tool an agent may use: a built-in (`goal`, `signal`), a module tool by its name (`fetch_page`),
 * an MCP server's tool as `server.tool` (`files.write_file`), or tools of a server by a glob
 * (`files.*`, `files.read_*`).
 */
export const TOOL_NAME_RE = /^(?:[A-Za-z0-9_-]{1,64}|[A-Za-z0-9_-]+\.[A-Za-z0-9._*-]+)$/;

/** A tool pattern for `approval.tools`: a tool name as above, where `*` matches any characters. */
export const TOOL_PATTERN_RE = /^[A-Za-z0-9_.*-]+$/;

/**
 * A tool name or glob: within the glob bounds (checked first, so the pattern's regex never reads a
 * long string) and of the form `re` describes.
 */
function toolGlob(re: RegExp, message: string) {
  return z.string().superRefine((value, ctx) => {
    const bound = toolGlobIssue(value);
    if (bound !== undefined) ctx.addIssue({ code: 'custom', message: bound });
    else if (!re.test(value)) ctx.addIssue({ code: 'custom', message });
  });
}

const AgentSchema = z.strictObject({
  /** Required unless the agent is a `team` (checked when the role compiles, where the error is located). */
  instructions: z.string().min(1, 'must be a non-empty string').optional(),
  /**
   * The agent is a nested team: a role file, resolved against this role file's folder, run as a child
   * workflow (docs/teams.md, "Nested teams").
   */
  team: z.string().trim().min(1, 'must be a non-empty string').optional(),
  description: z.string().optional(),
  model: ModelSchema.optional(),
  tools: z.array(toolGlob(TOOL_NAME_RE, 'must be goal, signal, a module tool name, server.tool or server.*')).optional(),
  /** Tool rounds of one dispatch before a last call with `tool_choice: none` (overrides the model's). */
  max_tool_rounds: positiveInt.optional(),
  /** Tool calls of one reply that run (overrides the model's). */
  max_parallel_tool_calls: MaxParallelToolCallsSchema.optional(),
  timeout_ms: positiveInt.optional(),
  /** A reply still cut by `max_tokens` after one continuation (overrides the model's). */
  on_truncated: OnTruncatedSchema.optional(),
  /** `required`: each dispatch's first reply must call a tool (overrides the model's). */
  tool_choice: ToolChoiceSchema.optional(),
  /**
   * Agents this one may transfer to, each by a `transfer_to_<name>` tool (`user`: a human), or
   * `edges`: every target of its out-edges (docs/teams.md, "Handoffs").
   */
  handoffs: z.union([z.literal('edges'), z.array(z.string().trim().min(1, 'must be a non-empty string'))]).optional(),
});

/** Object form of an edge. `when` is a condition, validated by the condition parser. */
const EdgeObjectSchema = z.strictObject({
  from: z.string().trim().min(1, 'must be a non-empty string'),
  to: z.string().trim().min(1, 'must be a non-empty string'),
  label: z.string().optional(),
  exit: z.boolean().optional(),
  when: z.unknown().optional(),
});
const EdgeSchema = z.union([z.string(), EdgeObjectSchema]);

/** Termination block: raw condition items, parsed (with located errors) by `core/conditions/parse.ts`. */
const TerminationSchema = z.strictObject({
  any_of: z.array(z.unknown()).min(1, 'must list at least one condition').optional(),
  all_of: z.array(z.unknown()).min(1, 'must list at least one condition').optional(),
});

/** The selector of `topology: selector` (docs/teams.md, "Selector teams"). */
const SelectorSchema = z.strictObject({
  model: ModelSchema.optional(),
  /** The selector prompt; `{roles}`, `{participants}` and `{history}` are filled in. */
  prompt: z.string().min(1, 'must be a non-empty string').optional(),
  allow_repeated_speaker: z.boolean().optional(),
  max_attempts: positiveInt.optional(),
});

const CollaborationSchema = z.strictObject({
  topology: z.string().min(1).optional(),
  agents: z.array(z.string().min(1)).optional(),
  flow: z.array(EdgeSchema).optional(),
  max_iterations: LoopCapSchema.optional(),
  context: z.enum(['inbox', 'thread']).optional(),
  termination: TerminationSchema.optional(),
  /** Turns of a `swarm` or `selector` team per round (docs/teams.md, "Turns"). */
  max_turns: positiveInt.optional(),
  selector: SelectorSchema.optional(),
});

const GoalSchema = z.strictObject({
  objective: z.string().min(1),
  success_criteria: z.string().optional(),
  constraints: z.string().optional(),
  max_turns: positiveInt.default(10),
  max_duration_ms: positiveInt.default(9_000_000),
});

const OutputSchema = z.strictObject({
  schema: z.record(z.string(), z.unknown()),
  max_retries: z.number().int().min(0).default(2),
});

const ApprovalSchema = z.strictObject({
  before_exit: z.boolean().default(false),
  /** Tool calls that wait for a human first: tool names, `server.*`, or globs such as `deploy_*`. */
  tools: z.array(toolGlob(TOOL_PATTERN_RE, 'must be a tool name or a pattern with *')).optional(),
});

const BudgetSchema = z.strictObject({
  max_total_tokens: positiveInt.optional(),
  max_cost_usd: z.number().positive().optional(),
  max_agent_calls: positiveInt.optional(),
  max_duration_ms: positiveInt.optional(),
  /** Calls of worker tools (MCP and module tools) in the whole run. */
  max_tool_calls: positiveInt.optional(),
});

export const RoleConfigSchema = z.strictObject({
  name: z.string().regex(ROLE_NAME_RE, 'must match [a-z0-9][a-z0-9-]*'),
  description: z.string().optional(),
  task: z.string().optional(),
  model: ModelSchema.optional(),
  pricing: z.record(z.string(), PriceSchema).optional(),
  agents: z.record(z.string(), AgentSchema).refine((agents) => Object.keys(agents).length <= MAX_AGENTS, M.tooManyAgents(MAX_AGENTS)),
  judge: z.strictObject({ model: ModelSchema.optional() }).optional(),
  collaboration: CollaborationSchema,
  goal: GoalSchema.optional(),
  output: OutputSchema.optional(),
  approval: ApprovalSchema.optional(),
  budget: BudgetSchema.optional(),
});

/** A parsed (zod-validated) role.yaml. */
export type RoleConfig = z.infer<typeof RoleConfigSchema>;
export type ModelConfig = z.infer<typeof ModelSchema>;
export type AgentConfig = z.infer<typeof AgentSchema>;
export type EdgeConfig = z.infer<typeof EdgeSchema>;
export type GoalConfig = z.infer<typeof GoalSchema>;
export type BudgetConfig = z.infer<typeof BudgetSchema>;

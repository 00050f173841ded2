/**
 * Handoffs (docs/teams.md, "Handoffs"): the `transfer_to_<target>` tools an agent is offered, and
 * what a reply's transfer calls do. The first transfer of a reply is made; any other gets an error
 * text, and the agent is told at its next dispatch. A transfer ends the agent's turn. Pure: the
 * decision after a model turn (`core/llm/next-step.ts`) reads a reply's transfers with it, and the
 * workflow applies the transfer when it records the result.
 */
import type { HandoffTool, ToolEvent } from '../llm/contract';
import type { WorkerFunctionTool } from '../llm/tool-contract';
import { agentSummary, transferToolName } from '../graph/teams';
import { USER, type CompiledGraph } from '../graph/types';

/** Every text of handoffs a model or a human reads, kept together so tests pin them. */
export const HANDOFF_TEXTS = {
  userDescription: 'Hand the conversation to a human user and wait for their answer (it comes back to you).',
  agentDescription: (target: string, about: string) => `Hand the conversation to ${target}: ${about}`,
  messageDescription: 'What the one taking over needs to know (optional).',
  transferred: (target: string) => `Transferred to ${target}.`,
  oneTransferPerTurn: (made: string) => `Error: one transfer per turn. You already transferred to ${made}; this transfer was not made.`,
  refusedWarning: (agent: string, made: string, refused: string[]) =>
    `${agent} asked for ${refused.length + 1} transfers in one reply: only the first (to ${made}) was made; not made: ${refused.join(', ')}`,
  refusedNote: (made: string, refused: string[]) =>
    `Your last reply asked for more than one transfer. One transfer per turn: only the first (to ${made}) was made; not made: ${refused.join(', ')}.`,
} as const;

/** A description of at most this many characters: the target's own, else its first instruction line. */
const MAX_DESCRIPTION_CHARS = 300;

/** The transfer tools of `agent`, one per handoff target, in order; none when it has no handoffs. */
export function handoffTools(graph: CompiledGraph, agent: string): HandoffTool[] {
  return (graph.agents[agent]?.handoffs ?? []).map((target) => ({
    name: transferToolName(target),
    target,
    description: target === USER ? HANDOFF_TEXTS.userDescription : HANDOFF_TEXTS.agentDescription(target, about(graph, target)),
  }));
}

function about(graph: CompiledGraph, target: string): string {
  const text = agentSummary(graph, target);
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : text;
}

/** A transfer tool as the model is offered it: one optional `message`. */
export function handoffDefinition(tool: HandoffTool): WorkerFunctionTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: {
        type: 'object',
        properties: { message: { type: 'string', description: HANDOFF_TEXTS.messageDescription } },
        additionalProperties: false,
      },
    },
  };
}

/** What a reply's transfer calls come to: the transfer made (the first), and each transfer call's tool result by call index. */
export interface ReplyTransfers {
  event?: Extract<ToolEvent, { tool: 'handoff' }>;
  results: Map<number, string>;
}

/**
 * The transfers among a reply's calls, in call order: the first is made (its `message`, when it is a
 * string, goes with it: a transfer is never refused for its arguments); the others are not.
 */
export function replyTransfers(calls: ReadonlyArray<{ name: string; arguments: string }>, tools: readonly HandoffTool[]): ReplyTransfers {
  const out: ReplyTransfers = { results: new Map() };
  const refused: string[] = [];
  calls.forEach((call, i) => {
    const tool = tools.find((t) => t.name === call.name);
    if (!tool) return;
    if (out.event) {
      refused.push(tool.target);
      out.results.set(i, HANDOFF_TEXTS.oneTransferPerTurn(out.event.target));
      return;
    }
    const message = messageOf(call.arguments);
    out.event = { tool: 'handoff', target: tool.target, ...(message ? { message } : {}) };
    out.results.set(i, HANDOFF_TEXTS.transferred(tool.target));
  });
  if (out.event && refused.length > 0) out.event.refused = refused;
  return out;
}

/** Largest handoff message kept, in characters. */
const MAX_MESSAGE_CHARS = 4000;

function messageOf(json: string): string | undefined {
  try {
    const args: unknown = JSON.parse(json.trim() === '' ? '{}' : json);
    const message = args && typeof args === 'object' ? (args as { message?: unknown }).message : undefined;
    return typeof message === 'string' && message.trim() !== '' ? message.trim().slice(0, MAX_MESSAGE_CHARS) : undefined;
  } catch {
    return undefined;
  }
}

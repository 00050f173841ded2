/**
 * How the built-in offline model uses worker tools, so the demo shows a tool loop with no API key.
 * Like every offline reply it is derived from the request alone: the tools offered and the tool
 * rounds already in the conversation. With filesystem tools it asks for the allowed folder, writes
 * the agent's notes there (and calls every module tool offered, in the same reply), reads the notes
 * back, then answers in text naming what the tools returned.
 */
import { sampleFromSchema } from './offline-replies';

/** A tool offered in the request. */
interface OfflineTool {
  name: string;
  parameters?: unknown;
}

/** The parts of the conversation the planner reads. */
export interface OfflineToolRequest {
  agent: string;
  topic: string;
  tools: OfflineTool[];
  /** `none` on the closing call. */
  toolChoice?: string;
  /** The tool calls of earlier rounds and their results, in order. */
  rounds: Array<Array<{ name: string; arguments: string; result: string }>>;
}

/** A tool call the offline model makes. */
interface OfflineToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Texts of the offline tool flow, so tests pin them. */
const OFFLINE_TOOL_TEXTS = {
  notesFile: (agent: string) => `${agent}-notes.md`,
  notes: (agent: string, topic: string) =>
    [`# Notes by ${agent}`, '', `Topic: ${topic}`, '', '- Durable runs resume where they stopped.', '- Tools run once, even when a worker dies.', ''].join('\n'),
  answer: (agent: string, results: string[]) =>
    [`[offline model] ${agent}: I used my tools and here is what they returned:`, ...results.map((r) => `- ${r}`)].join('\n'),
} as const;

const ends = (name: string, suffix: string) => name === suffix || name.endsWith(`__${suffix}`);

function find(tools: OfflineTool[], ...suffixes: string[]): OfflineTool | undefined {
  for (const s of suffixes) {
    const t = tools.find((tool) => ends(tool.name, s));
    if (t) return t;
  }
  return undefined;
}

/** The first folder a `list_allowed_directories` result names. */
function allowedFolder(req: OfflineToolRequest): string | undefined {
  for (const call of req.rounds.flat()) {
    if (!ends(call.name, 'list_allowed_directories')) continue;
    const line = call.result.split('\n').map((l) => l.trim()).find((l) => l.startsWith('/') || /^[A-Za-z]:\\/.test(l));
    if (line) return line;
  }
  return undefined;
}

/**
 * The tool calls of the next reply, or undefined when the model should answer in text (no tools
 * offered, the closing call, or the flow is done).
 */
export function offlineToolCalls(req: OfflineToolRequest): OfflineToolCall[] | undefined {
  if (req.tools.length === 0 || req.toolChoice === 'none') return undefined;
  const list = find(req.tools, 'list_allowed_directories');
  const write = find(req.tools, 'write_file');
  const read = find(req.tools, 'read_text_file', 'read_file');
  const modules = req.tools.filter((t) => !t.name.includes('__') && t.name !== 'goal' && t.name !== 'signal');
  const round = req.rounds.length;
  if (round === 0 && list) return [{ name: list.name, arguments: {} }];
  const folder = allowedFolder(req);
  const notes = folder ? `${folder}/${OFFLINE_TOOL_TEXTS.notesFile(req.agent)}` : OFFLINE_TOOL_TEXTS.notesFile(req.agent);
  const wrote = req.rounds.flat().some((c) => write && c.name === write.name);
  if (!wrote && (write || modules.length > 0)) {
    const calls: OfflineToolCall[] = [];
    if (write) calls.push({ name: write.name, arguments: { path: notes, content: OFFLINE_TOOL_TEXTS.notes(req.agent, req.topic) } });
    for (const m of modules) calls.push({ name: m.name, arguments: moduleArguments(m, req) });
    return calls;
  }
  const readBack = req.rounds.flat().some((c) => read && c.name === read.name);
  if (wrote && read && !readBack) return [{ name: read.name, arguments: { path: notes } }];
  return undefined;
}

/** Arguments for a module tool: a sample of its schema, its text fields filled with the agent's notes. */
function moduleArguments(tool: OfflineTool, req: OfflineToolRequest): Record<string, unknown> {
  const sample = sampleFromSchema(tool.parameters ?? { type: 'object' }, OFFLINE_TOOL_TEXTS.notes(req.agent, req.topic));
  return sample && typeof sample === 'object' && !Array.isArray(sample) ? (sample as Record<string, unknown>) : {};
}

/** The text answer after the tool rounds: each call and, in brief, what it returned. */
export function offlineToolAnswer(req: OfflineToolRequest): string | undefined {
  const calls = req.rounds.flat();
  if (calls.length === 0) return undefined;
  const lines = calls.map((c) => `${c.name}: ${c.result.replace(/\s+/g, ' ').trim().slice(0, 120)}`);
  return OFFLINE_TOOL_TEXTS.answer(req.agent, lines);
}

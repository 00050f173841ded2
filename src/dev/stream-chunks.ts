/**
 * Splits a chat completion into the chunks an OpenAI-compatible endpoint streams for it, so the
 * offline model (and the test stub) can answer `stream: true` with the very reply they would send in
 * one piece: a first chunk with the role, the content (and refusal) in pieces, each tool call as a
 * first fragment with its `index`, `id` and name and then pieces of its arguments (one call after
 * another, as OpenAI sends them, or interleaved, as some compatible servers do), a last choice chunk
 * with the finish reason, and, when asked for, the usage in a chunk with `choices: []`.
 */

/** A completion as the servers build it (the fields they set). */
export interface CompletionShape {
  id: string;
  object?: string;
  created: number;
  model: string;
  system_fingerprint?: string;
  choices: Array<{
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal?: string | null;
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    };
    finish_reason: string;
    logprobs?: null;
  }>;
  usage?: Record<string, unknown>;
}

/** How to split. */
export interface ChunkOptions {
  /** Characters (code points) of content, refusal or arguments per chunk; default 16. */
  chunkChars?: number;
  /** Interleave the fragments of several tool calls (0, 1, 0, 1, ...). */
  interleaveToolCalls?: boolean;
  /** Add the usage chunk (`stream_options.include_usage`). */
  includeUsage?: boolean;
}

/** `text` in pieces of at most `size` code points (a surrogate pair is never split). */
export function pieces(text: string, size: number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += Math.max(1, size)) out.push(points.slice(i, i + Math.max(1, size)).join(''));
  return out;
}

/** The chunks of `completion`, in the order they are sent (without the closing `[DONE]`). */
export function completionChunks(completion: CompletionShape, opts: ChunkOptions = {}): Array<Record<string, unknown>> {
  const size = opts.chunkChars ?? 16;
  const head = {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    ...(completion.system_fingerprint ? { system_fingerprint: completion.system_fingerprint } : {}),
  };
  const chunk = (index: number, delta: Record<string, unknown>, finish: string | null = null) => ({
    ...head,
    choices: [{ index, delta, logprobs: null, finish_reason: finish }],
    ...(opts.includeUsage ? { usage: null } : {}),
  });
  const chunks: Array<Record<string, unknown>> = [];
  for (const choice of completion.choices) {
    const { message } = choice;
    chunks.push(chunk(choice.index, { role: 'assistant', content: '' }));
    for (const piece of pieces(message.content ?? '', size)) chunks.push(chunk(choice.index, { content: piece }));
    for (const piece of pieces(message.refusal ?? '', size)) chunks.push(chunk(choice.index, { refusal: piece }));
    const calls = (message.tool_calls ?? []).map((call, index) => [
      { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
      ...pieces(call.function.arguments, size).map((part) => ({ index, function: { arguments: part } })),
    ]);
    const fragments = opts.interleaveToolCalls ? roundRobin(calls) : calls.flat();
    for (const fragment of fragments) chunks.push(chunk(choice.index, { tool_calls: [fragment] }));
    chunks.push(chunk(choice.index, {}, choice.finish_reason));
  }
  if (opts.includeUsage && completion.usage) chunks.push({ ...head, choices: [], usage: completion.usage });
  return chunks;
}

/** The items of the lists taken one from each in turn: [[a1, a2], [b1, b2]] → a1, b1, a2, b2. */
function roundRobin<T>(lists: T[][]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const list of lists) if (i < list.length) out.push(list[i]!);
  return out;
}

/** One chunk as a server-sent event. */
export function sseEvent(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** Whether a request body asks for a streamed reply. */
export function wantsStream(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
}

/** Whether a streamed request asks for the usage chunk. */
export function wantsUsage(body: unknown): boolean {
  const options = (body as { stream_options?: { include_usage?: unknown } } | null)?.stream_options;
  return options?.include_usage === true;
}

/**
 * Assembles the chunks of a streamed chat completion into the `ChatCompletion` the same endpoint
 * returns without streaming, so everything after the request reads one shape: content and refusal
 * joined, tool calls joined by their `index` (fragments of two calls may interleave, 0, 1, 0, 1; the
 * `openai` package's `.stream()` helper reports a call done too early then), the finish reason, the
 * model, the id and the usage of the last chunk (`choices: []`, sent with
 * `stream_options.include_usage`). Pure.
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';

interface ToolCallParts {
  id: string;
  name: string;
  arguments: string;
}

interface ChoiceParts {
  content: string;
  refusal: string;
  /** Tool calls by their `index`. */
  toolCalls: Map<number, ToolCallParts>;
  /** The `index` of the tool call the last fragment went to (for fragments that carry none). */
  lastCall?: number;
  /** One past the highest `index` so far: where a call without one goes. */
  nextIndex: number;
  /** The `index` of each call by its `id`, for fragments that carry an id and no index. */
  byId: Map<string, number>;
  finishReason: ChatCompletion.Choice['finish_reason'] | null;
}

/** One streamed completion being put together, chunk by chunk. */
export class CompletionAssembler {
  private id = '';
  private created = 0;
  private model = '';
  private systemFingerprint: string | undefined;
  private serviceTier: ChatCompletion['service_tier'] | undefined;
  private usage: CompletionUsage | undefined;
  private readonly choices = new Map<number, ChoiceParts>();
  /** What the reply holds so far ({@link held}). */
  private heldBytes = 0;

  /**
   * The bytes of the reply as the model wrote it so far — its text, refusal and tool calls (ids,
   * names, arguments), UTF-8, with {@link ENTRY_BYTES} for each choice and call — which
   * `max_reply_bytes` caps (core/llm/reply-caps.ts). A stream's framing (each event's JSON around a
   * token or two) is not held, so it does not count.
   */
  get held(): number {
    return this.heldBytes;
  }

  /** Adds one chunk; returns the content it adds to the first choice (for the live text). */
  add(chunk: ChatCompletionChunk): string {
    if (!this.id && typeof chunk.id === 'string') this.id = chunk.id;
    if (!this.created && typeof chunk.created === 'number') this.created = chunk.created;
    if (!this.model && typeof chunk.model === 'string') this.model = chunk.model;
    if (chunk.system_fingerprint) this.systemFingerprint = chunk.system_fingerprint;
    if (chunk.service_tier) this.serviceTier = chunk.service_tier;
    // the last report wins: servers that count as they go send a growing usage on every chunk; any
    // value but null counts as reported, and is judged as usage later (core/llm/reported-usage.ts)
    if (chunk.usage !== undefined && chunk.usage !== null) this.usage = chunk.usage;
    let text = '';
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const index = typeof choice?.index === 'number' ? choice.index : 0;
      const parts = this.choice(index);
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string') {
        parts.content += delta.content;
        this.heldBytes += Buffer.byteLength(delta.content);
        if (index === 0) text += delta.content;
      }
      if (typeof delta.refusal === 'string') {
        parts.refusal += delta.refusal;
        this.heldBytes += Buffer.byteLength(delta.refusal);
      }
      for (const fragment of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) this.heldBytes += addFragment(parts, fragment);
      if (choice.finish_reason) parts.finishReason = choice.finish_reason;
    }
    return text;
  }

  /** Whether every choice has its finish reason (a stream that ends before is cut off). */
  get finished(): boolean {
    return this.choices.size > 0 && [...this.choices.values()].every((c) => c.finishReason !== null);
  }

  /** Whether the stream reported its usage. */
  get hasUsage(): boolean {
    return this.usage !== undefined;
  }

  /** The completion as the endpoint would have returned it in one piece. */
  completion(): ChatCompletion {
    const choices = [...this.choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => {
        const toolCalls = [...c.toolCalls.entries()]
          .sort(([a], [b]) => a - b)
          .map(
            ([, t]): ChatCompletionMessageFunctionToolCall => ({
              id: t.id,
              type: 'function',
              function: { name: t.name, arguments: t.arguments },
            }),
          );
        return {
          index,
          message: {
            role: 'assistant' as const,
            // an endpoint answering in one piece sends null, not '', for a reply of tool calls only
            content: c.content !== '' ? c.content : null,
            refusal: c.refusal !== '' ? c.refusal : null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: c.finishReason as ChatCompletion.Choice['finish_reason'],
          logprobs: null,
        };
      });
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices,
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.systemFingerprint ? { system_fingerprint: this.systemFingerprint } : {}),
      ...(this.serviceTier ? { service_tier: this.serviceTier } : {}),
    };
  }

  private choice(index: number): ChoiceParts {
    let parts = this.choices.get(index);
    if (!parts) {
      this.heldBytes += ENTRY_BYTES;
      parts = { content: '', refusal: '', toolCalls: new Map(), nextIndex: 0, byId: new Map(), finishReason: null };
      this.choices.set(index, parts);
    }
    return parts;
  }
}

/** What one choice or tool call costs beside its strings, as the reply cap counts it: a stream of empty calls is no free stream. */
export const ENTRY_BYTES = 64;

/** The bytes `next` adds over `previous`, a string it replaces. */
function grown(previous: string, next: string): number {
  return Math.max(0, Buffer.byteLength(next) - Buffer.byteLength(previous));
}

/**
 * Adds one tool-call fragment to its call; returns the bytes it added to what the reply holds. The
 * first fragment of a call brings its `index`, `id`, name and `arguments: ''`; later ones the same `index` and a piece of the arguments. A fragment
 * without an `index` (some servers send whole calls) goes to the call with its `id`, to a new call
 * when the id is new, else to the call of the previous fragment. Constant work per fragment (maps
 * by id and the next free index), so a stream of many calls costs what its bytes do.
 */
function addFragment(parts: ChoiceParts, fragment: ChatCompletionChunk.Choice.Delta.ToolCall): number {
  let added = 0;
  const id = typeof fragment.id === 'string' && fragment.id !== '' ? fragment.id : undefined;
  let index: number;
  if (typeof fragment.index === 'number') index = fragment.index;
  else {
    const byId = id === undefined ? undefined : parts.byId.get(id);
    index = byId ?? (id !== undefined ? parts.nextIndex : (parts.lastCall ?? parts.nextIndex));
  }
  let call = parts.toolCalls.get(index);
  if (!call) {
    call = { id: '', name: '', arguments: '' };
    parts.toolCalls.set(index, call);
    added += ENTRY_BYTES;
    // an index past every safe integer (1e308) leaves the next free one where it was
    if (index >= parts.nextIndex && Number.isSafeInteger(index + 1)) parts.nextIndex = index + 1;
  }
  if (id !== undefined) {
    if (call.id !== id) {
      if (parts.byId.get(call.id) === index) parts.byId.delete(call.id);
      if (!parts.byId.has(id)) parts.byId.set(id, index);
    }
    added += grown(call.id, id);
    call.id = id;
  }
  // a name is sent once; a server that repeats it on every fragment repeats it whole
  if (typeof fragment.function?.name === 'string' && fragment.function.name !== '') {
    added += grown(call.name, fragment.function.name);
    call.name = fragment.function.name;
  }
  if (typeof fragment.function?.arguments === 'string') {
    call.arguments += fragment.function.arguments;
    added += Buffer.byteLength(fragment.function.arguments);
  }
  parts.lastCall = index;
  return added;
}

/**
 * The streamed-call reader: server-sent events decoded in pieces of any size, chunks assembled into
 * the completion the endpoint sends in one piece (tool calls joined by index even when interleaved,
 * usage from the last chunk, refusal), and the failures of a stream (cut off, an error event, data
 * that is not JSON) classified like the failures of a whole body.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { readResponse } from '../../../src/activities/responses';
import { SseDecoder } from '../../../src/activities/sse';
import { CompletionAssembler } from '../../../src/activities/stream-assembly';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';
import { FAILURE_TYPES, type LlmFailureDetails } from '../../../src/core/llm/contract';
import { completionChunks, sseEvent, type CompletionShape } from '../../../src/dev/stream-chunks';

const caller = { kind: 'agent' as const, agent: 'writer' };

/** A completion with two tool calls and text, as an endpoint would send it whole. */
const whole: CompletionShape = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1700000000,
  model: 'served-model',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Looking both up: ünïcode 𝄞 ok',
        refusal: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'search', arguments: '{"query":"reasons to stream","limit":3}' } },
          { id: 'call_b', type: 'function', function: { name: 'fetch', arguments: '{"url":"https://example.com/a"}' } },
        ],
      },
      finish_reason: 'tool_calls',
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 42, completion_tokens: 17, total_tokens: 59, prompt_tokens_details: { cached_tokens: 0 } },
};

/** The SSE text of `completion`, as the stub and the offline model send it. */
function sseText(completion: CompletionShape, opts: Parameters<typeof completionChunks>[1] = {}): string {
  return completionChunks(completion, { includeUsage: true, ...opts }).map(sseEvent).join('') + sseEvent('[DONE]');
}

/** A response whose body arrives in the given pieces. */
function streamResponse(pieces: Array<string | Uint8Array>, headers: Record<string, string> = { 'content-type': 'text/event-stream' }, error?: Error): Response {
  const bytes = pieces.map((p) => (typeof p === 'string' ? new TextEncoder().encode(p) : p));
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < bytes.length) controller.enqueue(bytes[i++]!);
      else if (error) controller.error(error);
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'x-request-id': 'req_9', ...headers } });
}

async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

const noText = () => undefined;

describe('SseDecoder', () => {
  it('decodes events split anywhere, with CRLF, CR or LF line ends, comments and multi-line data', () => {
    const text = ': keep-alive\r\ndata: {"a":1}\r\n\r\nevent: error\ndata: line one\ndata: line two\n\rdata: [DONE]\r\r';
    for (let size = 1; size <= text.length; size++) {
      const decoder = new SseDecoder();
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...decoder.push(text.slice(i, i + size)));
      events.push(...decoder.end());
      expect(events).toEqual([{ data: '{"a":1}' }, { event: 'error', data: 'line one\nline two' }, { data: '[DONE]' }]);
    }
  });

  it('dispatches a last event that no blank line closed', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('data: {"x":1}')).toEqual([]);
    expect(decoder.end()).toEqual([{ data: '{"x":1}' }]);
  });
});

describe('CompletionAssembler', () => {
  it('joins interleaved tool-call fragments (0, 1, 0, 1) by index into whole calls', () => {
    const chunks = completionChunks(whole, { chunkChars: 5, interleaveToolCalls: true, includeUsage: true });
    const indexes = chunks.flatMap((c) => ((c.choices as any[])[0]?.delta?.tool_calls ?? []).map((t: any) => t.index));
    // the fragments really interleave: the index changes back and forth
    expect(indexes.slice(0, 4)).toEqual([0, 1, 0, 1]);
    const assembler = new CompletionAssembler();
    for (const chunk of chunks) assembler.add(chunk as unknown as ChatCompletionChunk);
    expect(assembler.completion()).toEqual(whole);
    expect(assembler.hasUsage).toBe(true);
    expect(assembler.finished).toBe(true);
  });

  it('returns each content delta for the live text, and null content for a reply of tool calls only', () => {
    const toolsOnly: CompletionShape = { ...whole, choices: [{ ...whole.choices[0]!, message: { ...whole.choices[0]!.message, content: null } }] };
    const assembler = new CompletionAssembler();
    const written = completionChunks(toolsOnly, { includeUsage: true }).map((c) => assembler.add(c as unknown as ChatCompletionChunk));
    expect(written.join('')).toBe('');
    expect(assembler.completion().choices[0]!.message.content).toBeNull();
    const texts = new CompletionAssembler();
    const deltas = completionChunks(whole, { chunkChars: 4 }).map((c) => texts.add(c as unknown as ChatCompletionChunk));
    expect(deltas.join('')).toBe(whole.choices[0]!.message.content);
    expect(deltas.filter((d) => d !== '').length).toBeGreaterThan(3);
  });

  it('assembles a refusal, and has no usage when the stream sent none', () => {
    const refused: CompletionShape = {
      ...whole,
      choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, finish_reason: 'stop', logprobs: null }],
    };
    const assembler = new CompletionAssembler();
    for (const chunk of completionChunks(refused, { chunkChars: 3, includeUsage: false })) assembler.add(chunk as unknown as ChatCompletionChunk);
    const { usage: _usage, ...withoutUsage } = refused;
    expect(assembler.completion()).toEqual(withoutUsage);
    expect(assembler.hasUsage).toBe(false);
  });

  it('puts fragments without an index (whole calls, some servers) into calls by id', () => {
    const assembler = new CompletionAssembler();
    const chunk = (delta: object, finish: string | null = null) =>
      ({ id: 'x', created: 1, model: 'm', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] }) as unknown as ChatCompletionChunk;
    assembler.add(chunk({ tool_calls: [{ id: 'c1', type: 'function', function: { name: 'a', arguments: '{"x":' } }] }));
    assembler.add(chunk({ tool_calls: [{ function: { arguments: '1}' } }] }));
    assembler.add(chunk({ tool_calls: [{ id: 'c2', type: 'function', function: { name: 'b', arguments: '{}' } }] }));
    assembler.add(chunk({}, 'tool_calls'));
    expect(assembler.completion().choices[0]!.message.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
      { id: 'c2', type: 'function', function: { name: 'b', arguments: '{}' } },
    ]);
  });
});

describe('readResponse', () => {
  it('reads a stream split at every byte boundary into the completion the endpoint sends whole, usage included', async () => {
    const text = sseText(whole, { chunkChars: 7, interleaveToolCalls: true });
    const written: string[] = [];
    const bytes = [...new TextEncoder().encode(text)].map((b) => Uint8Array.of(b));
    const read = await readResponse(streamResponse(bytes), caller, (d) => written.push(d));
    expect(read).toEqual({ completion: whole, streamed: true, usageReported: true });
    expect(written.join('')).toBe(whole.choices[0]!.message.content);
  });

  it('reads a JSON body (an endpoint that ignores stream: true) as before, and SSE sent without its content type', async () => {
    const json = await readResponse(streamResponse([JSON.stringify(whole)], { 'content-type': 'application/json' }), caller, noText);
    expect(json).toEqual({ completion: whole, streamed: false, usageReported: true });
    const untyped = await readResponse(streamResponse([sseText(whole)], { 'content-type': 'text/plain' }), caller, noText);
    expect(untyped).toEqual({ completion: whole, streamed: true, usageReported: true });
  });

  it('reads a stream without a usage chunk, and says the usage was not reported', async () => {
    const text = completionChunks(whole, { includeUsage: false }).map(sseEvent).join('') + sseEvent('[DONE]');
    const read = await readResponse(streamResponse([text]), caller, noText);
    expect(read.usageReported).toBe(false);
    expect(read.completion.usage).toBeUndefined();
    expect(read.completion.choices).toEqual(whole.choices);
  });

  it('fails a stream that ends before [DONE] and before every finish reason as a retryable connection error', async () => {
    const chunks = completionChunks(whole, { includeUsage: true }).map(sseEvent);
    const cut = chunks.slice(0, 4).join('');
    const failure = await failureOf(readResponse(streamResponse([cut]), caller, noText));
    expect(failure.type).toBe(FAILURE_TYPES.retryable);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe(ACTIVITY_TEXTS.llm.connection('agent', 'writer', ACTIVITY_TEXTS.llm.streamCutOff));
    expect((failure.details?.[0] as LlmFailureDetails).requestId).toBe('req_9');
    // the connection broken mid-stream: also retryable, with the cause
    const broken = await failureOf(readResponse(streamResponse([cut], undefined, new TypeError('terminated')), caller, noText));
    expect(broken.type).toBe(FAILURE_TYPES.retryable);
    expect(broken.message).toContain(ACTIVITY_TEXTS.llm.bodyCutOff('terminated'));
  });

  it('accepts a stream whose every choice finished although [DONE] never came', async () => {
    const text = completionChunks(whole, { includeUsage: true }).map(sseEvent).join('');
    expect((await readResponse(streamResponse([text]), caller, noText)).completion).toEqual(whole);
  });

  it('classifies an error inside the stream like the error object of a 200: fatal for 400-like codes, else retried', async () => {
    const first = completionChunks(whole).map(sseEvent).slice(0, 2).join('');
    const fatal = await failureOf(
      readResponse(streamResponse([first, sseEvent({ error: { message: 'context length exceeded', code: 400 } })]), caller, noText),
    );
    expect(fatal.type).toBe(FAILURE_TYPES.fatal);
    expect(fatal.nonRetryable).toBe(true);
    expect(fatal.message).toBe(ACTIVITY_TEXTS.llm.http('agent', 'writer', 400, 'context length exceeded', 'req_9'));
    const retried = await failureOf(
      readResponse(streamResponse([first, 'event: error\ndata: {"message":"overloaded","status":503}\n\n']), caller, noText),
    );
    expect(retried.type).toBe(FAILURE_TYPES.retryable);
    expect(retried.message).toBe(ACTIVITY_TEXTS.llm.http('agent', 'writer', 503, 'overloaded', 'req_9'));
  });

  it('fails an event that is not JSON, and a stream with no choice at all, as retryable', async () => {
    const bad = await failureOf(readResponse(streamResponse(['data: {"choices": [\n\n']), caller, noText));
    expect(bad.type).toBe(FAILURE_TYPES.retryable);
    expect(bad.message).toContain(ACTIVITY_TEXTS.llm.eventNotJson('{"choices": ['));
    const empty = await failureOf(readResponse(streamResponse([sseEvent('[DONE]')]), caller, noText));
    expect(empty.message).toBe(ACTIVITY_TEXTS.llm.malformed('agent', 'writer', 'req_9'));
  });
});

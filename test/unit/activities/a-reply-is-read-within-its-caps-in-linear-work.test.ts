/**
 * The caps on one model reply (docs/semantics.md, "Bounds on hostile input"): the server-sent event
 * decoder does work linear in the bytes it is given, whatever the size of the pieces, and never holds
 * a line or an event past its cap; the reader fails a reply past `max_reply_bytes` (a whole body's
 * bytes, a stream's text and calls without its framing),
 * and an event past `max_event_bytes`, without a retry, naming the endpoint, the cap and the setting;
 * an error response's body is read only to its bound; the assembler joins any number of tool calls
 * in constant work each.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { cappedErrorBodies, MAX_ERROR_BODY_BYTES } from '../../../src/activities/error-bodies';
import { readResponse } from '../../../src/activities/responses';
import { SseDecoder, SseEventTooLargeError } from '../../../src/activities/sse';
import { CompletionAssembler, ENTRY_BYTES } from '../../../src/activities/stream-assembly';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';
import { FAILURE_TYPES } from '../../../src/core/llm/contract';
import { bytesText, replyCaps, REPLY_CAPS } from '../../../src/core/llm/reply-caps';
import { sseEvent } from '../../../src/dev/stream-chunks';

const KIB = 1024;
const MIB = 1024 * KIB;
const URL_SHOWN = 'http://models.example/v1';

/** A response whose body is `piece` written `times` times (or without end), pulled one piece at a time. */
function repeating(piece: string, times: number, contentType: string): { response: Response; pulled: () => number } {
  const bytes = new TextEncoder().encode(piece);
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= times) return controller.close();
      pulled += 1;
      controller.enqueue(bytes);
    },
  });
  return { response: new Response(body, { status: 200, headers: { 'content-type': contentType, 'x-request-id': 'req_7' } }), pulled: () => pulled };
}

async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

describe('SseDecoder, linear and capped', () => {
  const event = sseEvent({ choices: [{ index: 0, delta: { content: 'héllo 𝄞' } }] });

  it.each([1, 3, 64, 4096, 65536])('pieces of %i bytes: every byte searched at most twice and copied at most once', (size) => {
    const bytes = new TextEncoder().encode(event.repeat(2000) + `data: ${'y'.repeat(200_000)}\n\n`);
    const decoder = new SseDecoder();
    let events = 0;
    for (let i = 0; i < bytes.length; i += size) events += decoder.push(bytes.subarray(i, i + size)).length;
    expect(events).toBe(2001);
    expect(decoder.work.pushed).toBe(bytes.length);
    expect(decoder.work.scanned).toBeLessThanOrEqual(2 * bytes.length);
    expect(decoder.work.copied).toBeLessThanOrEqual(bytes.length);
  });

  it('one line without end: 10 MB in 1,000-byte pieces is searched once per byte and joined never', () => {
    const piece = new Uint8Array(1000).fill(0x78);
    const decoder = new SseDecoder();
    decoder.push('data: ');
    for (let i = 0; i < 10_000; i++) decoder.push(piece);
    expect(decoder.work.scanned).toBeLessThanOrEqual(2 * decoder.work.pushed);
    expect(decoder.work.copied).toBe(0);
  });

  it('throws once a line passes the cap, holding no more than the cap', () => {
    const decoder = new SseDecoder(64 * KIB);
    const piece = new Uint8Array(4 * KIB).fill(0x78);
    decoder.push('data: ');
    let pushed = 6;
    expect(() => {
      for (;;) {
        decoder.push(piece);
        pushed += piece.length;
      }
    }).toThrow(SseEventTooLargeError);
    expect(pushed).toBeLessThanOrEqual(64 * KIB);
  });

  it('counts an event as its data lines: many short lines of one event pass the cap too, a comment line does not add', () => {
    const decoder = new SseDecoder(1000);
    expect(() => decoder.push(`data: ${'z'.repeat(90)}\n`.repeat(20))).toThrow(SseEventTooLargeError);
    const other = new SseDecoder(1000);
    expect(other.push(`: ${'c'.repeat(900)}\n`.repeat(20) + 'data: ok\n\n')).toEqual([{ data: 'ok' }]);
  });

  it('events each under the cap pass, however many', () => {
    const decoder = new SseDecoder(200);
    expect(decoder.push(event.repeat(100))).toHaveLength(100);
  });

  it('skips one leading byte-order mark, split or whole, and decodes characters split across pieces', () => {
    const bytes = new TextEncoder().encode(`\uFEFF${event}`);
    expect(bytes[0]).toBe(0xef);
    for (let size = 1; size <= 8; size++) {
      const decoder = new SseDecoder();
      const events = [];
      for (let i = 0; i < bytes.length; i += size) events.push(...decoder.push(bytes.subarray(i, i + size)));
      expect(events).toEqual([{ data: event.slice(6, -2) }]);
    }
  });
});

describe('replyCaps', () => {
  it('are the defaults when the model sets none', () => {
    expect(replyCaps(undefined)).toEqual({ replyBytes: 16 * MIB, eventBytes: 4 * MIB });
    expect(replyCaps({})).toEqual({ replyBytes: REPLY_CAPS.defaultReplyBytes, eventBytes: REPLY_CAPS.defaultEventBytes });
  });

  it("are the model's within the bounds, and an event never above the reply", () => {
    expect(replyCaps({ maxReplyBytes: 2 * MIB, maxEventBytes: 64 * KIB })).toEqual({ replyBytes: 2 * MIB, eventBytes: 64 * KIB });
    expect(replyCaps({ maxReplyBytes: 1 * MIB })).toEqual({ replyBytes: 1 * MIB, eventBytes: 1 * MIB });
    // a graph built by hand is held to the bounds all the same
    expect(replyCaps({ maxReplyBytes: 1e15, maxEventBytes: 1 })).toEqual({ replyBytes: 64 * MIB, eventBytes: 4 * KIB });
    expect(replyCaps({ maxReplyBytes: Number.NaN })).toEqual({ replyBytes: 16 * MIB, eventBytes: 4 * MIB });
  });

  it('reads bytes as people do', () => {
    expect([bytesText(16 * MIB), bytesText(64 * KIB), bytesText(1500)]).toEqual(['16 MiB', '64 KiB', '1500 bytes']);
  });
});

describe('readResponse within the caps', () => {
  const caller = { kind: 'agent' as const, agent: 'writer', endpoint: URL_SHOWN, caps: { replyBytes: 256 * KIB, eventBytes: 16 * KIB } };
  const chunk = sseEvent({ id: 'c', choices: [{ index: 0, delta: { content: 'x'.repeat(8 * KIB) }, finish_reason: null }] });

  it('fails a stream without end at the reply cap, not retried, naming the endpoint, the cap and the setting', async () => {
    const { response, pulled } = repeating(chunk, Number.POSITIVE_INFINITY, 'text/event-stream');
    const failure = await failureOf(readResponse(response, caller, () => undefined));
    expect(failure).toMatchObject({ type: FAILURE_TYPES.fatal, nonRetryable: true });
    expect(failure.message).toBe(ACTIVITY_TEXTS.llm.replyTooLarge('agent', 'writer', URL_SHOWN, '256 KiB', '64 MiB'));
    expect(failure.message).toContain('raise agents.writer.model.max_reply_bytes (or model.max_reply_bytes)');
    expect(failure.details?.[0]).toMatchObject({ kind: 'agent', status: 200, requestId: 'req_7', message: ACTIVITY_TEXTS.llm.replyTooLargeDetail('agent', 'writer', URL_SHOWN, '256 KiB', '64 MiB') });
    // what was read: the cap and the piece that passed it, and the one piece the stream pulls ahead
    expect(pulled() * chunk.length).toBeLessThanOrEqual(256 * KIB + 2 * chunk.length);
  });

  it('fails one event without end at the event cap', async () => {
    const { response } = repeating('x'.repeat(KIB), Number.POSITIVE_INFINITY, 'text/event-stream');
    const failure = await failureOf(readResponse(response, caller, () => undefined));
    expect(failure).toMatchObject({ type: FAILURE_TYPES.fatal, nonRetryable: true });
    expect(failure.message).toBe(ACTIVITY_TEXTS.llm.eventTooLarge('agent', 'writer', URL_SHOWN, '16 KiB', '64 MiB'));
  });

  it('fails a whole body without end at the reply cap, and reads one within it', async () => {
    const { response, pulled } = repeating('x'.repeat(KIB), Number.POSITIVE_INFINITY, 'application/json');
    const failure = await failureOf(readResponse(response, caller, () => undefined));
    expect(failure.message).toBe(ACTIVITY_TEXTS.llm.replyTooLarge('agent', 'writer', URL_SHOWN, '256 KiB', '64 MiB'));
    expect(pulled()).toBeLessThanOrEqual(256 + 2);
    const body = JSON.stringify({ id: 'c', choices: [{ index: 0, message: { role: 'assistant', content: 'y'.repeat(200 * KIB) }, finish_reason: 'stop' }] });
    const read = await readResponse(repeating(body, 1, 'application/json').response, caller, () => undefined);
    expect(read.completion.choices[0]!.message.content).toHaveLength(200 * KIB);
  });

  it('counts a stream\'s reply as the model wrote it, not the framing of its events', async () => {
    // 240 KiB of text in events of 4 characters each: some 15 MiB on the wire, within a 256 KiB cap
    const token = sseEvent({ id: 'chatcmpl-7', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'abcd' }, finish_reason: null }] });
    const tokens = (240 * KIB) / 4;
    const last = sseEvent({ id: 'chatcmpl-7', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(token.repeat(1024));
        for (let i = 0; i < tokens / 1024; i++) controller.enqueue(bytes);
        controller.enqueue(new TextEncoder().encode(`${last}data: [DONE]\n\n`));
        controller.close();
      },
    });
    expect(token.length * tokens).toBeGreaterThan(8 * 256 * KIB);
    const response = new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const read = await readResponse(response, caller, () => undefined);
    expect(read.completion.choices[0]!.message.content).toHaveLength(240 * KIB);
  });

  it('counts each choice and tool call a stream opens, so a stream of empty calls reaches the cap', async () => {
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const calls = Array.from({ length: 64 }, () => ({ index: n++, function: { arguments: '' } }));
        controller.enqueue(new TextEncoder().encode(sseEvent({ id: 'c', choices: [{ index: 0, delta: { tool_calls: calls }, finish_reason: null }] })));
      },
    });
    const response = new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_7' } });
    const failure = await failureOf(readResponse(response, caller, () => undefined));
    expect(failure.message).toBe(ACTIVITY_TEXTS.llm.replyTooLarge('agent', 'writer', URL_SHOWN, '256 KiB', '64 MiB'));
    expect(n).toBeLessThanOrEqual((256 * KIB) / ENTRY_BYTES + 128);
  });

  it('names the judge and the selector settings for their calls', () => {
    expect(ACTIVITY_TEXTS.llm.replyTooLarge('judge', 'critic', URL_SHOWN, '16 MiB', '64 MiB')).toContain('raise judge.model.max_reply_bytes (or model.max_reply_bytes)');
    expect(ACTIVITY_TEXTS.llm.eventTooLarge('selector', 'selector', URL_SHOWN, '4 MiB', '64 MiB')).toContain('raise collaboration.selector.model.max_event_bytes (or model.max_event_bytes)');
  });
});

describe('cappedErrorBodies', () => {
  it('hands on at most its bound of an error body without end, and stops reading it there', async () => {
    const { response, pulled } = repeating('e'.repeat(KIB), Number.POSITIVE_INFINITY, 'application/json');
    const failing = new Response(response.body, { status: 500, headers: response.headers });
    const fetch = cappedErrorBodies(async () => failing);
    const got = await fetch('http://models.example/v1/chat/completions');
    expect(got.status).toBe(500);
    expect((await got.text()).length).toBe(MAX_ERROR_BODY_BYTES);
    expect(pulled()).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES / KIB + 2);
  });

  it('leaves a successful response and a short error body as they are', async () => {
    const ok = new Response('{"ok":true}', { status: 200 });
    expect(await cappedErrorBodies(async () => ok)('http://x')).toBe(ok);
    const short = await cappedErrorBodies(async () => new Response('{"error":{"message":"bad key"}}', { status: 401 }))('http://x');
    expect([short.status, await short.text()]).toEqual([401, '{"error":{"message":"bad key"}}']);
  });
});

describe('CompletionAssembler with many tool calls', () => {
  it('joins 100,000 calls sent without an index, each to its own id, in order', () => {
    const assembler = new CompletionAssembler();
    const chunk = (delta: object, finish: string | null = null) =>
      ({ id: 'x', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] }) as unknown as ChatCompletionChunk;
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      assembler.add(chunk({ tool_calls: [{ id: `c${i}`, function: { name: 'f', arguments: '{' } }] }));
      assembler.add(chunk({ tool_calls: [{ function: { arguments: '}' } }] }));
    }
    // a fragment naming an earlier call's id goes to that call
    assembler.add(chunk({ tool_calls: [{ id: 'c7', function: { arguments: ' ' } }] }));
    assembler.add(chunk({}, 'tool_calls'));
    const calls = assembler.completion().choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(n);
    expect(calls[n - 1]).toEqual({ id: `c${n - 1}`, type: 'function', function: { name: 'f', arguments: '{}' } });
    expect(calls[7]).toMatchObject({ id: 'c7', function: { arguments: '{} ' } });
  });

  it('a call at index 1e308 allocates nothing and leaves the next free index usable', () => {
    const assembler = new CompletionAssembler();
    const chunk = (delta: object) => ({ id: 'x', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] }) as unknown as ChatCompletionChunk;
    assembler.add(chunk({ tool_calls: [{ index: 1e308, id: 'far', function: { name: 'f', arguments: '{}' } }] }));
    assembler.add(chunk({ tool_calls: [{ id: 'near', function: { name: 'g', arguments: '{}' } }] }));
    expect(assembler.completion().choices[0]!.message.tool_calls!.map((c) => c.id)).toEqual(['near', 'far']);
  });
});

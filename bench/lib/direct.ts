/**
 * The no-durability baseline's request path: the same openai client troupe's activities build
 * (createOpenAIClient, maxRetries 0) sending a recorded chat-completions body with troupe's headers.
 * The baseline loop, the promise pool and the floor activity all call the stub through this.
 */
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { createOpenAIClient } from '../../src/activities/llm';
import { encodeHeaderValue, TROUPE_HEADERS } from '../../src/core/llm/contract';

/** A chat-completions request body as troupe sends it. */
export type ChatBody = ChatCompletionCreateParamsNonStreaming;

/** The openai client troupe would build for a model without its own endpoint, pointed at `baseUrl`. */
export function benchClient(baseUrl: string): OpenAI {
  return createOpenAIClient({ name: 'stub-model' }, { baseUrl, apiKey: 'bench-key', env: {} }, { kind: 'agent', agent: 'bench' });
}

/**
 * Sends one request the way the agent activity does (timeout, no retries, troupe headers); returns the
 * text. A recorded body that troupe streamed is sent whole: the baselines stay a plain request, so
 * streaming counts against troupe.
 */
export async function directChat(client: OpenAI, recorded: ChatBody, agent: string): Promise<string> {
  const { stream: _stream, stream_options: _options, ...body } = recorded as ChatBody & { stream?: unknown; stream_options?: unknown };
  const { data } = await client.chat.completions
    .create(body, {
      timeout: 29_000,
      maxRetries: 0,
      headers: {
        [TROUPE_HEADERS.agent]: encodeHeaderValue(agent),
        [TROUPE_HEADERS.kind]: 'agent',
        [TROUPE_HEADERS.workflowId]: 'direct',
      },
    })
    .withResponse();
  return data.choices[0]?.message.content ?? '';
}

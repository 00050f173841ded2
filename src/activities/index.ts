/**
 * The LLM activities the worker registers (SPEC §2, §5): agent calls, convergence judging and transcript
 * compaction. The endpoint defaults and environment are injected so the worker, the demo and the tests
 * can point every call at their own OpenAI-compatible server.
 */
import type { ResolvedModel } from '../core/graph/types';
import { makeCallAgent } from './agent';
import { makeCompactTranscript } from './compaction';
import { makeJudgeConvergence } from './judge';
import { createOpenAIClient, type LlmEndpointOptions } from './llm';

/**
 * Creates the activities bound to an endpoint. A model's own `baseUrl`/`apiKeyEnv` win; otherwise `baseUrl`,
 * `apiKey`, then `OPENAI_BASE_URL`/`OPENAI_API_KEY` from `env` (default `process.env`).
 */
export function createActivities(opts: LlmEndpointOptions = {}) {
  const endpoint: LlmEndpointOptions = { ...opts, env: opts.env ?? process.env };
  const clientFor = (input: { model: ResolvedModel }) => createOpenAIClient(input.model, endpoint);
  return {
    callAgent: makeCallAgent(clientFor),
    judgeConvergence: makeJudgeConvergence(clientFor),
    compactTranscript: makeCompactTranscript(clientFor),
  };
}

/** The activity interface, for `proxyActivities<TroupeActivities>()` in workflow code (`import type` only). */
export type TroupeActivities = ReturnType<typeof createActivities>;

export type { LlmEndpointOptions } from './llm';

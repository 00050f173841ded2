/**
 * The LLM activities the worker registers: agent calls, convergence judging, transcript compaction
 * and a selector team's speaker selection. The endpoint defaults and environment are injected so the
 * worker, the demo and the tests can point every call at their own OpenAI-compatible server.
 */
import type { ResolvedModel } from '../core/graph/types';
import { makeCallAgent } from './agent';
import { makeCompactTranscript } from './compaction';
import { endpointPolicy } from './endpoints';
import { makeJudgeConvergence } from './judge';
import { makeCallModel } from './model';
import { makePrepareRun } from './prepare';
import { makeSelectSpeaker } from './selector';
import { makeCallTool } from './tools';
import type { ToolRegistry } from '../tools';
import { createOpenAIClient, type LlmEndpointOptions, type LlmKind } from './llm';
import { environmentSecrets, Redactor } from '../secrets/redactor';
import { redactingActivities } from './redact';

/**
 * Creates the activities bound to an endpoint. A model's own `baseUrl`/`apiKeyEnv` win when the worker
 * allows them (`TROUPE_ALLOWED_BASE_URLS`, `TROUPE_ALLOWED_KEY_ENVS` in `env`, or `trustRoleEndpoints`);
 * otherwise `baseUrl`, `apiKey`, then `OPENAI_BASE_URL`/`OPENAI_API_KEY` from `env` (default `process.env`).
 * Throws when an allowlist entry is not a URL, so a misconfigured worker does not start. Every text an
 * activity returns or throws passes one redaction step (`redact.ts`), with `redactor` when one is given.
 */
export function createActivities(opts: LlmEndpointOptions & { tools?: ToolRegistry; redactor?: Redactor } = {}) {
  const { redactor: given, ...rest } = opts;
  const endpoint: LlmEndpointOptions = { ...rest, env: opts.env ?? process.env };
  const policy = endpointPolicy(endpoint);
  // a redactor given by the worker is filled here, and redacts its spans too (src/telemetry/tracing.ts)
  const redactor = given ?? new Redactor();
  for (const secret of [opts.apiKey, ...environmentSecrets(endpoint.env ?? {}, policy.keyEnvs), ...(opts.tools?.secrets ?? [])]) redactor.add(secret);
  const clientFor =
    (kind: LlmKind) =>
    (input: { agent: string; model: ResolvedModel }) => {
      const client = createOpenAIClient(input.model, endpoint, { kind, agent: input.agent }, policy);
      // a key a trusted role named (troupe dev) is a secret too
      redactor.add(client.apiKey ?? undefined);
      return client;
    };
  return redactingActivities(
    {
      callAgent: makeCallAgent(clientFor('agent')),
      callModel: makeCallModel(clientFor('agent')),
      judgeConvergence: makeJudgeConvergence(clientFor('judge')),
      compactTranscript: makeCompactTranscript(clientFor('compaction')),
      selectSpeaker: makeSelectSpeaker(clientFor('selector')),
      prepareRun: makePrepareRun(policy, () => opts.tools),
      callTool: makeCallTool(() => opts.tools),
    },
    redactor,
  );
}

/** The activity interface, for `proxyActivities<TroupeActivities>()` in workflow code (`import type` only). */
export type TroupeActivities = ReturnType<typeof createActivities>;

export type { LlmEndpointOptions } from './llm';

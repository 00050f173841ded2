/** Runs troupe's LLM activities in the SDK's MockActivityEnvironment with a quiet logger. */
import type { Logger } from '@temporalio/worker';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DEFAULT_MAX_TOOL_ROUNDS, DEFAULT_PARALLEL_TOOL_CALLS } from '../../src/core/config/limits';
import type { ResolvedModel } from '../../src/core/graph/types';
import type { TurnOffer } from '../../src/core/llm/contract';

const quiet: Logger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** A mock activity environment whose start-to-close timeout is `startToCloseTimeoutMs` (default 30 s). */
export function activityEnv(startToCloseTimeoutMs = 30_000): MockActivityEnvironment {
  return new MockActivityEnvironment({ startToCloseTimeoutMs }, { logger: quiet });
}

/** The model most tests use. */
export const testModel: ResolvedModel = { name: 'test-model', temperature: 0.3, maxTokens: 256 };

/** `env.run` with the activity's own result type (the SDK's signature cannot infer it). */
export function runIn<A extends unknown[], R>(
  env: MockActivityEnvironment,
  fn: (...args: A) => Promise<R>,
  ...args: A
): Promise<R> {
  return env.run(fn, ...args) as Promise<R>;
}

/** What a dispatch offers the model, as the workflow builds it (`turnOffer`, `core/llm/next-step.ts`): nothing but `over`, with the defaults' bounds. */
export function testOffer(over: Partial<TurnOffer> = {}): TurnOffer {
  return { builtins: [], workerTools: [], handoffs: [], maxToolRounds: DEFAULT_MAX_TOOL_ROUNDS, maxParallelToolCalls: DEFAULT_PARALLEL_TOOL_CALLS, ...over };
}

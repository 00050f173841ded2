/** Runs troupe's LLM activities in the SDK's MockActivityEnvironment with a quiet logger. */
import type { Logger } from '@temporalio/worker';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ResolvedModel } from '../../src/core/graph/types';

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

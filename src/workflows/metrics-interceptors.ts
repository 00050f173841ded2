/**
 * Turns on the metrics a workflow records (`run-metrics.ts`; docs/observability.md, "Metrics").
 * **Runs in the workflow sandbox.** Bundled only by a worker that exports metrics (`bundleWorkflows`
 * in src/worker.ts), as the tracing interceptors are bundled only by one that traces: each recording
 * is an SDK sink call that copies the run's whole `WorkflowInfo` to the main thread, three per step,
 * which a worker whose runtime exports no metrics paid for nothing (BENCHMARKS.md, B1). Recording
 * issues no command, so a run replays alike with or without it.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { turnOnWorkflowMetrics } from './run-metrics';

export const interceptors: WorkflowInterceptorsFactory = () => {
  turnOnWorkflowMetrics();
  return {};
};

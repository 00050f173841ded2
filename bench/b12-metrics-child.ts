/**
 * B12's measuring process (forked by bench/b12-metrics.ts): it installs the Temporal runtime with
 * troupe's Prometheus exporter, as `troupe worker --metrics` does, and times `chatCompletion`
 * against the bench stub in an activity context whose meter is the runtime's (metrics on) or the
 * SDK's no-op (metrics off, as a worker without the flag), in alternating blocks. Prints one JSON line.
 */
import { Runtime } from '@temporalio/worker';
import { MockActivityEnvironment } from '@temporalio/testing';
import OpenAI from 'openai';
import { chatCompletion, openCallScope } from '../src/activities/llm';
import { prometheusTelemetry } from '../src/telemetry/worker-metrics';

async function main(): Promise<void> {
  const [stubUrl, address, blocksArg, perBlockArg] = process.argv.slice(2);
  const blocks = Number(blocksArg);
  const perBlock = Number(perBlockArg);
  Runtime.install({ telemetryOptions: prometheusTelemetry(address) });
  const meter = Runtime.instance().metricMeter.withTags({ namespace: 'default', taskQueue: 'bench' });
  const on = new MockActivityEnvironment({ activityType: 'callAgent', startToCloseTimeoutMs: 60_000 } as never, { metricMeter: meter });
  const off = new MockActivityEnvironment({ activityType: 'callAgent', startToCloseTimeoutMs: 60_000 } as never);
  const client = new OpenAI({ baseURL: stubUrl, apiKey: 'bench', maxRetries: 0 });
  const body = { model: 'bench-model', messages: [{ role: 'user' as const, content: 'Say something.' }] };
  const call = (env: MockActivityEnvironment) =>
    env.run(async () => chatCompletion(client, body, openCallScope('agent', 'writer', 'bench-wf', 60_000)));
  for (let i = 0; i < 50; i++) await call(i % 2 ? on : off); // warm-up
  const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
  for (let b = 0; b < blocks; b++) {
    for (const mode of b % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const env = mode === 'on' ? on : off;
      const start = process.hrtime.bigint();
      for (let i = 0; i < perBlock; i++) await call(env);
      times[mode].push(Number(process.hrtime.bigint() - start) / 1000 / perBlock);
    }
  }
  const scrape = await (await fetch(`http://${address}/metrics`)).text();
  const counted = /troupe_model_calls_total\{[^}]*\} (\d+)/.exec(scrape)?.[1];
  process.stdout.write(`${JSON.stringify({ ...times, counted: Number(counted ?? 0) })}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);

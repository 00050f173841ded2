import { startBenchStub } from './lib/stub-client';
import { buildBundles, startStack } from './lib/stack';
import { activitySteps, stepPhases } from './lib/history';
import { summarize } from './lib/stats';
async function main() {
  const stub = await startBenchStub();
  const bundles = await buildBundles();
  const reqs = [{ agent: 'w', body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } as any }];
  const configs: Record<string, any> = {
    default: undefined,
    partitions1: { 'matching.numTaskqueueReadPartitions': 1, 'matching.numTaskqueueWritePartitions': 1 },
  };
  for (const [name, dc] of Object.entries(configs)) {
    const st = await startStack({ name, bundles, stubUrl: stub.url, floorRequests: () => reqs, dynamicConfig: dc });
    for (let rep = 0; rep < 2; rep++) {
      const t = performance.now();
      const h = await st.startFloor({ steps: 100, mode: 'activity' });
      await h.result();
      const wall = (performance.now() - t) / 100;
      const ph = stepPhases(activitySteps(await h.fetchHistory()));
      const s = (k: keyof (typeof ph)[0]) => summarize(ph.map((p) => p[k])).p50.toFixed(1);
      console.log(name, rep, 'ms/step', wall.toFixed(1), 'dispatch', s('dispatch'), 'execute', s('execute'), 'wakeup', s('wakeup'), 'decide', s('decide'));
    }
    await st.close();
  }
  await stub.close();
}
main();

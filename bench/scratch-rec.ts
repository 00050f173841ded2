import { temporal } from '@temporalio/proto';
import * as fs from 'node:fs';
import { startBenchStub } from './lib/stub-client';
import { buildBundles, compileYaml, startStack } from './lib/stack';
import { reviewLoopYaml, BENCH_TASK } from './lib/loops';
async function main() {
  const stub = await startBenchStub();
  const bundles = await buildBundles();
  fs.writeFileSync('/tmp/troupe-bundle.js', bundles.troupe.code);
  const st = await startStack({ name: 'x', bundles, stubUrl: stub.url, floorRequests: () => [] });
  for (const n of [10, 100]) {
    const h = await st.startTroupe(compileYaml(reviewLoopYaml(n)), BENCH_TASK);
    await st.result(h);
    const hist = await h.fetchHistory();

    fs.writeFileSync(`/tmp/hist-${n}.bin`, temporal.api.history.v1.History.encode(hist).finish());
    fs.writeFileSync(`/tmp/hist-${n}.id`, h.workflowId);
  }
  await st.close(); await stub.close();
}
main();

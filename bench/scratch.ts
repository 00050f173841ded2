import { startBenchStub } from './lib/stub-client';
import { buildBundles, compileYaml, startStack } from './lib/stack';
import { cpuMs } from './lib/proc';
import { execSync } from 'node:child_process';

async function main() {
  const t0 = performance.now();
  const stub = await startBenchStub();
  console.log('stub', stub.url, performance.now() - t0);
  const bundles = await buildBundles();
  console.log('bundles', bundles.troupeMs, bundles.floorMs);
  let reqs: any[] = [];
  const t1 = performance.now();
  const stack = await startStack({ name: 'P0', bundles, stubUrl: stub.url, floorRequests: () => reqs });
  console.log('stack', performance.now() - t1, stack.server.version, stack.server.pid);
  console.log(execSync(`ps -o pid,ppid,comm --ppid ${stack.server.pid}; ps -o pid,ppid,comm -p ${stack.server.pid}`).toString());
  const graph = compileYaml(`
name: bench-loop
agents:
  writer: { instructions: "Write and revise the essay." }
  critic: { instructions: "Critique and give score: N." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 100
`);
  for (let r = 0; r < 2; r++) {
    await stub.reset();
    const c0 = cpuMs(stack.server.pid), w0 = cpuMs(process.pid);
    const t = performance.now();
    const h = await stack.startTroupe(graph, 'Write an essay');
    const res = await stack.result(h);
    const wall = performance.now() - t;
    const arr = await stub.arrivals();
    console.log('troupe', res.status, res.reason, wall, arr.length, (arr[arr.length-1]-arr[0])/(arr.length-1), 'cpu server', cpuMs(stack.server.pid)!-c0!, 'worker', cpuMs(process.pid)!-w0!);
    if (r === 0) reqs = await stub.requests();
    const hist = await h.fetchHistory();
    console.log('events', hist.events?.length);
    if (r === 1) { const e = hist.events![5] as any; console.log(Object.keys(e), e.eventType, e.eventTime); }
  }
  console.log('req size', JSON.stringify(reqs[10].body).length);
  for (const mode of ['activity', 'activity-heartbeat', 'local-activity'] as const) {
    await stub.reset();
    const t = performance.now();
    const h = await stack.startFloor({ steps: 200, mode });
    await h.result();
    const wall = performance.now() - t;
    const arr = await stub.arrivals();
    console.log(mode, wall, (arr[arr.length-1]-arr[0])/(arr.length-1));
  }
  await stack.close();
  await stub.close();
}
main().catch((e) => { console.error(e); process.exit(1); });

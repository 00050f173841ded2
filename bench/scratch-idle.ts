import { startDevServer } from '../src/dev/temporal-server';
import { cpuMs } from './lib/proc';
import { installRuntime, buildBundles, startStack } from './lib/stack';
async function main() {
  const s = await startDevServer({ headless: true });
  await new Promise((r) => setTimeout(r, 3000));
  let c = cpuMs(s.pid)!; await new Promise((r) => setTimeout(r, 5000));
  console.log('idle server cpu ms/s (no worker)', (cpuMs(s.pid)! - c) / 5);
  await s.stop();
  const bundles = await buildBundles();
  const st = await startStack({ name: 'x', bundles, stubUrl: 'http://127.0.0.1:1/v1', floorRequests: () => [] });
  await new Promise((r) => setTimeout(r, 3000));
  c = cpuMs(st.server.pid)!; const w = cpuMs(process.pid)!;
  await new Promise((r) => setTimeout(r, 5000));
  console.log('idle server cpu ms/s (2 workers)', (cpuMs(st.server.pid)! - c) / 5, 'worker', (cpuMs(process.pid)! - w) / 5);
  await st.close();
}
main();

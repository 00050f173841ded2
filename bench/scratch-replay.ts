import * as fs from 'node:fs';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { installRuntime } from './lib/stack';
async function main() {
  installRuntime();
  const code = fs.readFileSync('/tmp/troupe-bundle.js', 'utf8');
  for (const n of [10, 100, 100, 100]) {
    const hist = temporal.api.history.v1.History.decode(fs.readFileSync(`/tmp/hist-${n}.bin`));
    const id = fs.readFileSync(`/tmp/hist-${n}.id`, 'utf8');
    const t = performance.now();
    await Worker.runReplayHistory({ workflowBundle: { code } }, hist, id);
    console.log(n, hist.events.length, performance.now() - t);
  }
}
main();

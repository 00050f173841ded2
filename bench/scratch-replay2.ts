import * as fs from 'node:fs';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { installRuntime } from './lib/stack';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const shared = require('@temporalio/worker/lib/workflow/vm-shared');
async function main() {
  installRuntime();
  if (process.env.NOHOOK) shared.globalHandlers.setPromiseHook = () => undefined;
  const code = fs.readFileSync('/tmp/troupe-bundle.js', 'utf8');
  const nosm = process.env.NOSM ? code.slice(0, code.lastIndexOf('//# sourceMappingURL=')) : code;
  for (const n of [10, 10, 100, 100, 100]) {
    const hist = temporal.api.history.v1.History.decode(fs.readFileSync(`/tmp/hist-${n}.bin`));
    const id = fs.readFileSync(`/tmp/hist-${n}.id`, 'utf8');
    const t = performance.now();
    await Worker.runReplayHistory({ workflowBundle: { code: nosm } }, hist, id);
    console.log(n, hist.events.length, Math.round(performance.now() - t));
  }
}
main();

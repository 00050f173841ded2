/**
 * The determinism lint covers every troupe file that runs in the workflow sandbox
 * (docs/architecture.md, "The determinism boundary"): the files are read from the bundle a tracing,
 * encrypting worker builds (the most of troupe a bundle holds: the workflow, the tracing interceptors,
 * the payload and failure converters), and ESLint itself is asked, for each, whether the sandbox's
 * rules apply to it (`SANDBOX` in eslint.config.mjs). A new module the workflow imports from another
 * folder fails here, named, until its path is added to `SANDBOX`.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { troupeDataConverter } from '../../../src/codec/data-converter';
import { metersWorkflows, recordsProgress, workflowBundleOptions, workflowEntry } from '../../../src/worker';

const ROOT = path.resolve(__dirname, '../../..');

/** troupe's own modules in a bundle: webpack names each by its path from the project (`./src/…`). */
function troupeModules(code: string): string[] {
  return [...new Set([...code.matchAll(/"\.\/(src\/[^"]+\.ts)"/g)].map((m) => m[1]))].sort();
}

/** What ESLint's configuration of each file says of the sandbox: whether its timers and Node built-ins are errors. */
interface SandboxRules {
  files: Record<string, { globals: boolean; builtins: boolean }>;
  sandbox: string[];
}

/** Asks ESLint (in a process of its own: the config is an ES module) for the rules of `files`, and for `SANDBOX`. */
function sandboxRules(files: string[]): SandboxRules {
  const script = `
    import { ESLint } from 'eslint';
    const config = await import(${JSON.stringify(path.join(ROOT, 'eslint.config.mjs'))});
    const eslint = new ESLint({ cwd: ${JSON.stringify(ROOT)} });
    const out = { files: {}, sandbox: config.SANDBOX };
    for (const file of JSON.parse(process.argv[1])) {
      const rules = (await eslint.calculateConfigForFile(file)).rules ?? {};
      const [globalsLevel, ...globals] = rules['no-restricted-globals'] ?? [0];
      const [importsLevel, imports] = rules['no-restricted-imports'] ?? [0];
      out.files[file] = {
        globals: globalsLevel === 2 && globals.includes('setTimeout') && globals.includes('process'),
        builtins: importsLevel === 2 && (imports?.paths ?? []).includes('node:fs'),
      };
    }
    console.log(JSON.stringify(out));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(files)], { cwd: ROOT, encoding: 'utf8' })) as SandboxRules;
}

test('every troupe file in the bundle of a tracing, encrypting worker is linted as sandbox code, and SANDBOX names no file it does not load', async () => {
  const converter = troupeDataConverter({ TROUPE_PAYLOAD_KEY: Buffer.alloc(32, 7).toString('base64') });
  const { code } = await bundleWorkflowCode({ ...workflowBundleOptions(workflowEntry(), converter, true), logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } });
  const loaded = troupeModules(code);
  // what the bundle must hold for this test to mean anything: the workflow, the core, the interceptors, both converters
  expect(loaded).toEqual(
    expect.arrayContaining([
      'src/workflows/index.ts',
      'src/core/run/step.ts',
      'src/telemetry/workflow-interceptors.ts',
      'src/workflows/record-interceptors.ts',
      'src/workflows/metrics-interceptors.ts',
      'src/codec/payload-converter.ts',
      'src/codec/failure-converter.ts',
    ]),
  );
  expect(metersWorkflows({ code })).toBe(true);
  expect(recordsProgress({ code })).toBe(true);

  const { files, sandbox } = sandboxRules(loaded);
  const unlinted = loaded.filter((file) => !files[file].globals || !files[file].builtins);
  expect(unlinted).toEqual([]);

  // a file named on its own in SANDBOX is one the bundle loads (a glob may match files it does not)
  const named = sandbox.filter((entry) => !entry.includes('*'));
  expect(named.filter((file) => !loaded.includes(file))).toEqual([]);
});

test('the bundle of a worker that exports no metrics has no metrics module, and the worker can tell', async () => {
  const { code } = await bundleWorkflowCode({ ...workflowBundleOptions(workflowEntry(), undefined, false, false), logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } });
  const loaded = troupeModules(code);
  expect(loaded).toEqual(expect.arrayContaining(['src/workflows/run-metrics.ts', 'src/workflows/record-interceptors.ts']));
  expect(loaded).not.toContain('src/workflows/metrics-interceptors.ts');
  expect(metersWorkflows({ code })).toBe(false);
  expect(recordsProgress({ code })).toBe(true);
  // a bundle made without troupe's options, as by bundleWorkflowCode alone, has none
  const bare = await bundleWorkflowCode({ workflowsPath: workflowEntry(), logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } });
  expect(recordsProgress(bare)).toBe(false);
});

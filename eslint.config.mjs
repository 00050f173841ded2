// ESLint flat config with type-aware rules. It holds two boundaries of docs/architecture.md:
// - "The determinism boundary": every file that runs in the workflow sandbox ({@link SANDBOX}) may not
//   import Node built-ins, Temporal's client, worker or activity packages, or the activities at run
//   time, nor use timers, fetch or process; the pure core may not import Temporal at all.
// - Which folder may import which: telemetry does not import the activities at run time, and the
//   worker's secrets (src/secrets) import nothing of Temporal or of the rest of troupe. Cycles between
//   folders are `npm run lint:cycles` (scripts/folder-cycles.mjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = ['assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'http', 'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib'];
const BUILTINS = [...NODE_BUILTINS, ...NODE_BUILTINS.map((m) => `node:${m}`)];
/** The activities, as a path from anywhere in src. */
const ACTIVITIES = ['**/activities', '**/activities/*'];

/**
 * Every troupe file the workflow bundle loads: the workflow, the pure core, and the few files of
 * other folders that run in the sandbox too. A file the bundle loads that no entry here matches fails
 * test/unit/tree/every-file-the-workflow-bundle-loads-is-under-the-sandbox-lint.test.ts, which
 * names it: add its path (or its folder's glob) here, with a word on why it is in the sandbox.
 */
export const SANDBOX = [
  'src/workflows/**/*.ts',
  'src/core/**/*.ts',
  // a tracing worker's workflow interceptors (workflowInterceptorModules), their context manager, and the span names they use
  'src/telemetry/workflow-interceptors.ts',
  'src/telemetry/workflow-context.ts',
  'src/telemetry/genai.ts',
  // the rewind probe's workflow interceptor: in the bundle of `troupe rewind`'s replay worker only,
  // not a worker's, so a glob (the tree test holds a named entry to the worker's bundle)
  'src/rewind/*-interceptor.ts',
  // the payload and failure converters, which the SDK loads by path into the sandbox
  'src/codec/payload-converter.ts',
  'src/codec/failure-converter.ts',
  // the contract the workflow and the client share: workflow type, signals, Updates, queries, search keys
  'src/contract.ts',
];

/** `no-restricted-imports` with `paths` banned outright and the `patterns` banned at run time (a type import is fine). */
function restrictImports(paths, runTimePatterns) {
  return ['error', { paths, patterns: [{ group: runTimePatterns, allowTypeImports: true }] }];
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'bench/results/**', 'bin/**', '*.config.js', 'eslint.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  // later entries win for the files they match: each rule below restates what the earlier ones ban
  {
    files: ['src/telemetry/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([], ACTIVITIES) },
  },
  {
    files: ['src/secrets/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['@temporalio/*', '../*'], message: 'src/secrets imports nothing of Temporal or of the rest of troupe (docs/architecture.md)' }] }] },
  },
  {
    files: SANDBOX,
    rules: {
      'no-restricted-imports': restrictImports(BUILTINS, ['@temporalio/client', '@temporalio/worker', '@temporalio/activity', ...ACTIVITIES]),
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'fetch', 'process'],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports(BUILTINS, ['@temporalio/*', ...ACTIVITIES]) },
  },
);

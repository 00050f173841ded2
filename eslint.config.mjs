// ESLint flat config with type-aware rules (STYLE.md). The determinism boundary is enforced here:
// workflow code and the pure core may not import Node built-ins or do I/O.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = ['assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'http', 'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib'];
const restricted = [...NODE_BUILTINS, ...NODE_BUILTINS.map((m) => `node:${m}`)];

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
  {
    files: ['src/workflows/**/*.ts', 'src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: restricted, patterns: [{ group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity', '**/activities', '**/activities/*'], allowTypeImports: true }] }],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'fetch', 'process'],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: restricted, patterns: [{ group: ['@temporalio/*'], allowTypeImports: true }] }] },
  },
);

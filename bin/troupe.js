#!/usr/bin/env node
// Runs the TypeScript CLI directly (tsx), so a fresh clone needs no build step.
require('tsx/cjs');
require('../src/client.ts').main(process.argv.slice(2)).then(
  (code) => process.exit(code ?? 0),
  (err) => { console.error(err && err.message ? err.message : err); process.exit(1); },
);

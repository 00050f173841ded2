#!/usr/bin/env node
// The troupe CLI. In a clone of the repository it runs the TypeScript sources through tsx, so no
// build step is needed; an installed package (no src/) runs the compiled dist/.
const fs = require('node:fs');
const path = require('node:path');

const source = path.join(__dirname, '..', 'src', 'cli', 'main.ts');
let cli;
if (fs.existsSync(source)) {
  require('tsx/cjs');
  cli = require(source);
} else {
  cli = require(path.join(__dirname, '..', 'dist', 'cli', 'main.js'));
}
cli.main(process.argv.slice(2)).then(
  (code) => process.exit(code ?? 0),
  (err) => {
    console.error(err && err.message ? err.message : err);
    process.exit(1);
  },
);

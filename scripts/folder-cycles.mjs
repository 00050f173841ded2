#!/usr/bin/env node
// Cycles between the folders of src (docs/architecture.md, "The determinism boundary"), the second
// half of `npm run lint:cycles`. `madge --circular` sees cycles of files only, so two folders could
// import each other through different files unseen (telemetry/tracing-sdk.ts imported the Redactor
// from activities while activities imported telemetry). This folds madge's graph of run-time imports
// into one node per folder of src (core is one node; a file directly in src is a node of its own)
// and fails, naming the imports, when two nodes reach each other. A type-only import leaves nothing
// at run time and is not counted.
//
// Usage: node scripts/folder-cycles.mjs [src folder, default src]
import madge from 'madge';
import path from 'node:path';

const root = process.argv[2] ?? 'src';
const result = await madge(root, {
  fileExtensions: ['ts'],
  tsConfig: 'tsconfig.json',
  detectiveOptions: { ts: { skipTypeImports: true } },
});

/** The node a file of src belongs to: its top folder, or the file itself when it sits in src. */
const nodeOf = (file) => (file.includes('/') ? `${file.split('/')[0]}/` : file);

/** Folder → folder → the file imports that make the edge. */
const edges = new Map();
for (const [file, deps] of Object.entries(result.obj())) {
  for (const dep of deps) {
    const from = nodeOf(file);
    const to = nodeOf(dep);
    if (from === to) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const out = edges.get(from);
    if (!out.has(to)) out.set(to, []);
    out.get(to).push(`${file} → ${dep}`);
  }
}

/** Strongly connected components of the folder graph (Tarjan); each of more than one node is a cycle. */
function components() {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

const cycles = components();
const folders = new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]);
if (cycles.length === 0) {
  console.log(`✔ No cycle between the ${folders.size} folders and top-level files of ${path.normalize(root)} (run-time imports)`);
  process.exit(0);
}
for (const component of cycles) {
  console.error(`✖ These import each other at run time: ${component.join(', ')}`);
  for (const from of component) {
    for (const [to, imports] of edges.get(from) ?? []) {
      if (!component.includes(to)) continue;
      console.error(`  ${from} → ${to}: ${imports.slice(0, 3).join('; ')}${imports.length > 3 ? `; and ${imports.length - 3} more` : ''}`);
    }
  }
}
process.exit(1);

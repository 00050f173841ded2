/**
 * Another build of troupe for upgrade tests: a copy of this release with one change to the run
 * workflow (`src/workflows/run.ts`), resolving packages from this repository's node_modules.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');

/** The line of `src/workflows/run.ts` an end-of-run change goes after: the run has decided how it ends. */
export const RUN_END_ANCHOR = '  stopClock(state, Date.now());\n  const unanswered = pendingRequests(state);';

/** `run.ts` with a warning added at the end of every run, unguarded (no `patched()`). */
export const warnAtEnd = (warning: string) => (runTs: string) => runTs.replace(RUN_END_ANCHOR, `${RUN_END_ANCHOR}\n  warn(state, '${warning}');`);

/**
 * Copy `parts` of the repository (default `src/`; a release a worker process runs needs `bin/`,
 * `package.json` and `tsconfig.json` too) into a temporary folder and apply `edit` to its run
 * workflow; throws when `edit` changed nothing. Returns the folder; the caller removes it.
 */
export function patchedRelease(name: string, edit: (runTs: string) => string, parts: string[] = ['src']): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `troupe-${name}-`));
  for (const part of parts) fs.cpSync(path.join(REPO, part), path.join(root, part), { recursive: true });
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  const file = path.join(root, 'src', 'workflows', 'run.ts');
  const before = fs.readFileSync(file, 'utf8');
  const after = edit(before);
  if (after === before) throw new Error(`the change to ${file} changed nothing: has ${JSON.stringify(RUN_END_ANCHOR)} moved?`);
  fs.writeFileSync(file, after);
  return root;
}

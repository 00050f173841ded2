/**
 * One version (docs/versioning.md): the package's `version` is the release a run starts on and
 * records (`TROUPE_RELEASE`), so what `npm ls troupe` says is what the docs and the runs say.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TROUPE_RELEASE } from '../../../../src/core/state/release';

it("the package's version is TROUPE_RELEASE, in package.json and its lock file", () => {
  const root = path.resolve(__dirname, '..', '..', '..', '..');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { version: string; packages: Record<string, { version?: string }> };
  expect(pkg.version).toBe(TROUPE_RELEASE);
  expect(lock.version).toBe(TROUPE_RELEASE);
  expect(lock.packages[''].version).toBe(TROUPE_RELEASE);
});

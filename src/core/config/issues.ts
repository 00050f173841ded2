/**
 * Config issues: every error and warning about a role.yaml carries a config path and,
 * once located in the YAML text, a line and column. Pure.
 */
import { clip } from './limits';

/** A config path: object keys and list indexes, e.g. `['collaboration', 'flow', 2, 'to']`. */
export type Path = ReadonlyArray<string | number>;

/**
 * An issue found before locating, by path. `at: 'key'` points at the key itself (unknown keys,
 * whole sections); the default points at the value. A path that does not exist in the YAML
 * (a missing key) is located at its nearest existing ancestor.
 */
export interface PathIssue {
  path: Path;
  message: string;
  at?: 'key' | 'value';
}

/** A located issue, printed as `file:line:col path: message`. `line` 0 means "not in the text". */
export interface ConfigIssue {
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
}

const PLAIN_KEY = /^[^.[\]\s"']+$/;

/** Render a path with dots and `[i]`: `collaboration.termination.any_of[1].stuck.repeats`. Long keys are clipped. */
export function formatPath(path: Path): string {
  let out = '';
  for (const raw of path) {
    const seg = typeof raw === 'string' ? clip(raw) : raw;
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (PLAIN_KEY.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** `file:line:col path: message`; without a path `file:line:col: message`; without a position `file: message`. */
export function formatIssue(i: ConfigIssue): string {
  const where = i.line > 0 ? `${i.file}:${i.line}:${i.col}` : i.file;
  return i.path ? `${where} ${i.path}: ${i.message}` : `${where}: ${i.message}`;
}

/** Prefix every issue's path with `base` (used to place item-relative issues in the document). */
export function prefixIssues(base: Path, issues: readonly PathIssue[]): PathIssue[] {
  return issues.map((i) => ({ ...i, path: [...base, ...i.path] }));
}

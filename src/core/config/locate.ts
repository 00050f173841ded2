/**
 * Path → line:col in the YAML text. Values are located at the value; unknown keys and
 * whole sections at the key; a path that does not exist (a missing key) at its nearest existing
 * ancestor's key, or at the scalar the path runs through. Pure.
 */
import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from 'yaml';
import type { Path, PathIssue } from './issues';

/** A 1-based position. */
export interface Position {
  line: number;
  col: number;
}

interface Step {
  node: Node | null;
  pair?: Pair;
}

function keyText(k: unknown): string | undefined {
  if (isScalar(k)) return String(k.value);
  return typeof k === 'string' ? k : undefined;
}

function stepInto(node: Node | null, seg: string | number): Step | undefined {
  if (isMap(node)) {
    const pair = node.items.find((p) => keyText(p.key) === String(seg));
    return pair ? { node: (pair.value as Node | null) ?? null, pair } : undefined;
  }
  if (isSeq(node) && typeof seg === 'number') {
    const item = node.items[seg];
    return item === undefined ? undefined : { node: isPair(item) ? null : ((item as Node | null) ?? null) };
  }
  return undefined;
}

function startOf(n: unknown): number | undefined {
  const range = (n as { range?: [number, number, number] } | null)?.range;
  return range ? range[0] : undefined;
}

function isEmptyScalar(n: Node | null): boolean {
  return isScalar(n) && (n.value === null || n.value === undefined) && (n.range ? n.range[0] === n.range[1] : true);
}

/** The offset in the text for an issue at `path` (see the module doc for the rules). */
function locateOffset(doc: Document, path: Path, at: 'key' | 'value' = 'value'): number {
  const root = (doc.contents as Node | null) ?? null;
  const steps: Step[] = [{ node: root }];
  for (const seg of path) {
    const next = stepInto(steps[steps.length - 1].node, seg);
    if (!next) break;
    steps.push(next);
  }
  const last = steps[steps.length - 1];
  const complete = steps.length === path.length + 1;
  const keyStart = last.pair ? startOf(last.pair.key) : undefined;
  let offset: number | undefined;
  if (complete) {
    offset = at === 'key' || isEmptyScalar(last.node) ? keyStart ?? startOf(last.node) : startOf(last.node) ?? keyStart;
  } else if (isScalar(last.node) && !isEmptyScalar(last.node)) {
    offset = startOf(last.node);
  } else {
    offset = keyStart ?? startOf(last.node);
  }
  return offset ?? 0;
}

/** Line and column (1-based) of `offset`. */
export function positionOf(lineCounter: LineCounter, offset: number): Position {
  const p = lineCounter.linePos(offset);
  return p.line === 0 ? { line: 1, col: offset + 1 } : p;
}

/** Line and column (1-based) of `offset` in `text`, before the text is parsed (a file too deep to parse). */
export function positionInText(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}

/** Locate a path issue in the document. */
export function locate(doc: Document, lineCounter: LineCounter, issue: PathIssue): Position {
  return positionOf(lineCounter, locateOffset(doc, issue.path, issue.at));
}

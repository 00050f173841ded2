/**
 * The nesting bound of a role file (docs/semantics.md, "Bounds on hostile input"). The YAML reader recurses
 * once per level of nesting and exhausts the stack a few hundred levels down, so the text is scanned
 * first with the reader's own lexer (iterative: it sees quotes, comments and block scalars as the
 * reader does) and a file that is certainly too deep is refused before it is parsed; the value read
 * is then measured exactly, aliases expanded. Both walks are iterative. Pure.
 */
import { CST, Lexer } from 'yaml';
import type { Path } from './issues';
import { MAX_CONFIG_DEPTH } from './limits';

/** Markers the lexer yields that are not part of the text. */
const MARKERS = new Set([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

/**
 * The offset at which the text's nesting certainly passes `max` levels, or undefined. The estimate
 * (enclosing block lines by indentation, `-`/`?` indicators on the line, open flow brackets) never
 * counts more than one level above the real depth, and never less than half of it, so a refused
 * file is too deep and a file that passes is shallow enough for the YAML reader.
 */
export function deepTextOffset(text: string, max: number = 2 * MAX_CONFIG_DEPTH): number | undefined {
  let offset = 0;
  let flow = 0;
  let atLineStart = true;
  let indent = 0;
  let indicators = 0;
  const enclosing: number[] = [];
  for (const token of new Lexer().lex(text)) {
    if (MARKERS.has(token)) continue;
    const type = CST.tokenType(token);
    const start = offset;
    offset += token.length;
    if (type === 'newline') {
      atLineStart = true;
      indent = 0;
      indicators = 0;
      continue;
    }
    if (type === 'comment') continue;
    if (type === 'space' && /^ *$/.test(token)) {
      if (atLineStart) indent = token.length;
      continue;
    }
    if (atLineStart) {
      atLineStart = false;
      if (flow === 0) {
        while (enclosing.length > 0 && enclosing[enclosing.length - 1] >= indent) enclosing.pop();
        enclosing.push(indent);
      }
    }
    if (type === 'seq-item-ind' || type === 'explicit-key-ind') indicators += 1;
    else if (type === 'flow-map-start' || type === 'flow-seq-start') flow += 1;
    else if (type === 'flow-map-end' || type === 'flow-seq-end') flow = Math.max(0, flow - 1);
    if (enclosing.length + indicators + flow > max) return start;
  }
  return undefined;
}

/** Where a value is too deep: the path to its first node past the bound, or to an alias that contains itself. */
type DepthProblem = { kind: 'too_deep'; path: Path } | { kind: 'cycle'; path: Path };

/**
 * The first place where `value` nests more than `max` levels (a mapping or list is one level), or
 * refers to itself; undefined when it does neither. Iterative, depth first, in key order.
 */
export function depthProblem(value: unknown, max: number = MAX_CONFIG_DEPTH): DepthProblem | undefined {
  const stack: Array<{ node: unknown; path: Path; ancestors: Set<object> }> = [{ node: value, path: [], ancestors: new Set() }];
  while (stack.length > 0) {
    const { node, path, ancestors } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (ancestors.has(node)) return { kind: 'cycle', path };
    if (path.length >= max) return { kind: 'too_deep', path };
    const inside = new Set(ancestors).add(node);
    const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i -= 1) stack.push({ node: entries[i][1], path: [...path, entries[i][0]], ancestors: inside });
  }
  return undefined;
}

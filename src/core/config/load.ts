/**
 * role.yaml text → validated config + compiled graph: YAML syntax errors, schema errors,
 * unknown keys and graph errors are all reported at once, each located as `file:line:col path:
 * message`; warnings are kept separate. Pure (the file is read by `src/config-file.ts`).
 */
import { isAlias, LineCounter, parseDocument, visit, type Document, type YAMLError } from 'yaml';
import { compileRole } from '../graph/compile';
import type { CompiledGraph } from '../graph/types';
import { formatPath, type ConfigIssue, type Path, type PathIssue } from './issues';
import { lenientConfig } from './lenient';
import { locate, positionOf } from './locate';
import { CONFIG_MESSAGES as M } from './messages';
import { RoleConfigSchema, type RoleConfig } from './schema';
import { parseWithIssues } from './zod-issues';

export { formatIssue, type ConfigIssue } from './issues';

/** What loading a role.yaml gives: config and graph only when there are no errors. */
export interface LoadResult {
  config?: RoleConfig;
  graph?: CompiledGraph;
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
}

function byPosition(a: ConfigIssue, b: ConfigIssue): number {
  return a.line - b.line || a.col - b.col;
}

function unique(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.line}:${i.col}:${i.path}:${i.message}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}

function finish(r: { config?: RoleConfig; graph?: CompiledGraph; errors: ConfigIssue[]; warnings: ConfigIssue[] }): LoadResult {
  return { ...r, errors: unique(r.errors).sort(byPosition), warnings: unique(r.warnings).sort(byPosition) };
}

function yamlMessage(e: YAMLError): string {
  return e.code === 'MULTIPLE_DOCS' ? M.multipleDocuments : e.message;
}

/** The first alias without an anchor before it (toJS throws on it without a position). */
function unresolvedAlias(doc: Document): { offset: number; name: string } | undefined {
  let found: { offset: number; name: string } | undefined;
  visit(doc, {
    Alias(_, node) {
      if (isAlias(node) && node.resolve(doc) === undefined) {
        found = { offset: node.range?.[0] ?? 0, name: node.source };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** Graph checks that depend on sections the lenient pass may have dropped. */
const LENIENT_UNRELIABLE: Path[] = [['budget']];

function isUnder(path: Path, prefixes: readonly Path[]): boolean {
  return prefixes.some((p) => p.length <= path.length && p.every((seg, i) => path[i] === seg));
}

/** Parse, validate and compile a role.yaml. Never throws. */
/**
 * A check the caller adds to the loader's own, on a schema-valid config (for example the worker's
 * tools, which only a tools file knows); its issues are located like every other.
 */
export type ExtraCheck = (config: RoleConfig) => PathIssue[];

export function loadRoleConfig(text: string, file: string, extra?: ExtraCheck): LoadResult {
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const raw = (offset: number, message: string): ConfigIssue => ({ file, ...positionOf(lineCounter, offset), path: '', message });
  const located = (i: PathIssue): ConfigIssue => ({ file, ...locate(doc, lineCounter, i), path: formatPath(i.path), message: i.message });
  const yamlWarnings = doc.warnings.map((w) => raw(w.pos[0], w.message));
  if (doc.errors.length > 0) return finish({ errors: doc.errors.map((e) => raw(e.pos[0], yamlMessage(e))), warnings: yamlWarnings });
  if (doc.contents === null) return finish({ errors: [raw(0, M.emptyDocument)], warnings: yamlWarnings });

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    const alias = unresolvedAlias(doc);
    const error = alias ? raw(alias.offset, M.unresolvedAlias(alias.name)) : raw(0, M.yamlValue((e as Error).message));
    return finish({ errors: [error], warnings: yamlWarnings });
  }

  const parsed = parseWithIssues(RoleConfigSchema, data);
  if (!parsed.ok) {
    const errors = parsed.issues.map(located);
    const standIn = lenientConfig(data, parsed.issues);
    if (standIn) {
      const unreliable = [...LENIENT_UNRELIABLE, ...standIn.unreliable];
      const graphErrors = compileRole(standIn.config, { partial: standIn.partial }).errors.filter((i) => !isUnder(i.path, unreliable));
      errors.push(...graphErrors.map(located));
    }
    return finish({ errors, warnings: yamlWarnings });
  }
  const compiled = compileRole(parsed.data);
  const errors = [...compiled.errors, ...(extra?.(parsed.data) ?? [])].map(located);
  const warnings = [...yamlWarnings, ...compiled.warnings.map(located)];
  if (errors.length > 0) return finish({ errors, warnings });
  return finish({ config: parsed.data, graph: compiled.graph, errors, warnings });
}

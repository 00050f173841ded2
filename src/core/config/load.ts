/**
 * role.yaml text → validated config + compiled graph: YAML syntax errors, schema errors,
 * unknown keys and graph errors are all reported at once, each located as `file:line:col path:
 * message`; warnings are kept separate. Pure (the file is read by `src/config-file.ts`).
 */
import { isAlias, LineCounter, parseDocument, visit, type Document, type YAMLError } from 'yaml';
import { deepTextOffset, depthProblem } from './depth';
import { MAX_CONFIG_DEPTH, MAX_REPORTED_ISSUES, MAX_YAML_ERRORS } from './limits';
import { compileRole } from '../graph/compile';
import type { CompiledGraph, TeamGraph } from '../graph/types';
import { formatPath, type ConfigIssue, type Path, type PathIssue } from './issues';
import { lenientConfig } from './lenient';
import { locate, positionInText, positionOf } from './locate';
import { CONFIG_MESSAGES as M } from './messages';
import { RoleConfigSchema, type RoleConfig } from './schema';
import { parseWithIssues } from './zod-issues';

export { formatIssue } from './issues';

/** What loading a role.yaml gives: config and graph only when there are no errors. */
export interface LoadResult {
  config?: RoleConfig;
  graph?: CompiledGraph;
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
  /** How many errors and warnings the file has: more than listed when a list was cut at its bound (its last issue counts the rest). */
  found: { errors: number; warnings: number };
}

function byPosition(a: ConfigIssue, b: ConfigIssue): number {
  return a.line - b.line || a.col - b.col;
}

/** Issues in file order, file by file (a role's own first, then its team files'). */
function inFileOrder(issues: ConfigIssue[]): ConfigIssue[] {
  const files = [...new Set(issues.map((i) => i.file))];
  return files.flatMap((f) => issues.filter((i) => i.file === f).sort(byPosition));
}

function unique(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.line}:${i.col}:${i.path}:${i.message}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}

/** The result in file order; `yamlErrors` when the errors are the YAML reader's, which are cut sooner. */
function finish(r: { config?: RoleConfig; graph?: CompiledGraph; errors: ConfigIssue[]; warnings: ConfigIssue[] }, yamlErrors = false): LoadResult {
  const errors = inFileOrder(unique(r.errors));
  const warnings = inFileOrder(unique(r.warnings));
  return {
    ...r,
    errors: yamlErrors ? bounded(errors, MAX_YAML_ERRORS, M.moreYamlErrors) : bounded(errors, MAX_REPORTED_ISSUES, (n) => M.moreIssues(n, 'errors')),
    warnings: bounded(warnings, MAX_REPORTED_ISSUES, (n) => M.moreIssues(n, 'warnings')),
    found: { errors: errors.length, warnings: warnings.length },
  };
}

/**
 * At most `max` issues in file order; the rest are counted in one closing issue at the first one left
 * out, so a hostile file cannot make the answer as long as the file (docs/semantics.md, "Bounds on hostile input").
 */
function bounded(issues: ConfigIssue[], max: number, more: (n: number) => string): ConfigIssue[] {
  if (issues.length <= max) return issues;
  const cut = issues[max];
  return [...issues.slice(0, max), { file: cut.file, line: cut.line, col: cut.col, path: '', message: more(issues.length - max) }];
}

const STACK_EXHAUSTED = /Maximum call stack size exceeded/;

function yamlMessage(e: YAMLError): string {
  if (e.code === 'MULTIPLE_DOCS') return M.multipleDocuments;
  return STACK_EXHAUSTED.test(e.message) ? M.tooDeep(MAX_CONFIG_DEPTH) : e.message;
}

type AliasTest = (alias: { resolve(doc: Document): unknown; source: string }, ancestors: readonly unknown[]) => boolean;

/** The first alias that passes `test`, with its offset and anchor name. */
function findAlias(doc: Document, test: AliasTest): { offset: number; name: string } | undefined {
  let found: { offset: number; name: string } | undefined;
  visit(doc, {
    Alias(_, node, ancestors) {
      if (isAlias(node) && test(node, ancestors)) {
        found = { offset: node.range?.[0] ?? 0, name: node.source };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** The first alias without an anchor before it (toJS throws on it without a position). */
const unresolvedAlias = (doc: Document) => findAlias(doc, (alias) => alias.resolve(doc) === undefined);
/** The first alias inside the node it names: its value would contain itself. */
const selfAlias = (doc: Document) => findAlias(doc, (alias, ancestors) => ancestors.includes(alias.resolve(doc)));

/** How many alias expansions a file may cause (yaml's defence against "billion laughs" files). */
const MAX_ALIAS_COUNT = 100;

/** Graph checks that depend on sections the lenient pass may have dropped. */
const LENIENT_UNRELIABLE: Path[] = [['budget']];

function isUnder(path: Path, prefixes: readonly Path[]): boolean {
  return prefixes.some((p) => p.length <= path.length && p.every((seg, i) => path[i] === seg));
}

/**
 * A check the caller adds to the loader's own, on a schema-valid config (for example the worker's
 * tools, which only a tools file knows); its issues are located like every other.
 */
export type ExtraCheck = (config: RoleConfig) => { errors: PathIssue[]; warnings: PathIssue[] };

/** What the file loader found for a role's team agents (docs/teams.md, "Nested teams"). */
export interface LoadedTeams {
  /** The compiled graph of each team agent whose file loaded without errors. */
  teams: Record<string, TeamGraph>;
  /** Problems of this file's `team:` references, by path: a file that cannot be read, a cycle, too deep, a file with errors. */
  errors: PathIssue[];
  /** Issues inside the team files, located there. */
  inner: { errors: ConfigIssue[]; warnings: ConfigIssue[] };
}

/** Reads the team files a schema-valid role refers to (the Node side's `loadRoleFile` gives one). */
export type TeamLoader = (config: RoleConfig) => LoadedTeams;

/**
 * Parse, validate and compile a role.yaml; `loadTeams` reads its team files (without it, a team
 * agent is an error: this loader reads no files). Never throws.
 */
export function loadRoleConfig(text: string, file: string, extra?: ExtraCheck, loadTeams?: TeamLoader): LoadResult {
  const deep = deepTextOffset(text);
  if (deep !== undefined) {
    return finish({ errors: [{ file, ...positionInText(text, deep), path: '', message: M.tooDeep(MAX_CONFIG_DEPTH) }], warnings: [] });
  }
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const raw = (offset: number, message: string): ConfigIssue => ({ file, ...positionOf(lineCounter, offset), path: '', message });
  const located = (i: PathIssue): ConfigIssue => ({ file, ...locate(doc, lineCounter, i), path: formatPath(i.path), message: i.message });
  const yamlWarnings = doc.warnings.map((w) => raw(w.pos[0], w.message));
  if (doc.errors.length > 0) return finish({ errors: doc.errors.map((e) => raw(e.pos[0], yamlMessage(e))), warnings: yamlWarnings }, true);
  if (doc.contents === null) return finish({ errors: [raw(0, M.emptyDocument)], warnings: yamlWarnings });

  const cycle = selfAlias(doc);
  if (cycle) return finish({ errors: [raw(cycle.offset, M.selfAlias(cycle.name))], warnings: yamlWarnings });
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    const alias = unresolvedAlias(doc);
    const first = findAlias(doc, () => true);
    const message = (e as Error).message;
    let error: ConfigIssue;
    if (alias) error = raw(alias.offset, M.unresolvedAlias(alias.name));
    else if (/alias count/i.test(message)) error = raw(first?.offset ?? 0, M.aliasBomb(MAX_ALIAS_COUNT));
    else error = raw(0, STACK_EXHAUSTED.test(message) ? M.tooDeep(MAX_CONFIG_DEPTH) : M.yamlValue(message));
    return finish({ errors: [error], warnings: yamlWarnings });
  }
  const problem = depthProblem(data);
  if (problem) {
    const message = problem.kind === 'cycle' ? M.selfAlias('') : M.tooDeep(MAX_CONFIG_DEPTH);
    return finish({ errors: [located({ path: problem.path, message, at: 'key' })], warnings: yamlWarnings });
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
  const hasTeams = Object.values(parsed.data.agents).some((a) => a.team !== undefined);
  const loaded = hasTeams ? loadTeams?.(parsed.data) : undefined;
  const compiled = compileRole(parsed.data, loaded ? { teams: loaded.teams } : {});
  const added = extra?.(parsed.data);
  const errors = [...[...compiled.errors, ...(loaded?.errors ?? []), ...(added?.errors ?? [])].map(located), ...(loaded?.inner.errors ?? [])];
  const warnings = [...yamlWarnings, ...compiled.warnings.map(located), ...(added?.warnings ?? []).map(located), ...(loaded?.inner.warnings ?? [])];
  if (errors.length > 0) return finish({ errors, warnings });
  return finish({ config: parsed.data, graph: compiled.graph, errors, warnings });
}

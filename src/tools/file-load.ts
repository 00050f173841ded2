/**
 * Loads a tools file: YAML text → validated, expanded and resolved servers and modules. Every error
 * is reported at once, located `file:line:col path: message` like a role file's, with a did-you-mean
 * for unknown keys. `${VAR}` is expanded from the worker's environment in `env`, `args`, `url` and
 * `headers`; relative `cwd` and module paths resolve against the tools file's folder, and a server
 * without `cwd` runs in that folder (a server resolves its own relative arguments against its working
 * directory, so the file means the same wherever the worker was started). `args` are passed unchanged.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { formatPath, type ConfigIssue, type Path, type PathIssue } from '../core/config/issues';
import { deepTextOffset, depthProblem } from '../core/config/depth';
import { MAX_CONFIG_DEPTH } from '../core/config/limits';
import { locate, positionInText, positionOf, type Position } from '../core/config/locate';
import { closest } from '../core/config/did-you-mean';
import { CONFIG_MESSAGES } from '../core/config/messages';
import { parseWithIssues } from '../core/config/zod-issues';
import { expandVariables } from './expand';
import {
  HttpServerSchema,
  SERVER_NAME_PATTERN,
  StdioServerSchema,
  TOOLS_FILE_DEFAULTS,
  ToolsFileTopSchema,
  type HttpServerConfig,
  type StdioServerConfig,
} from './file-schema';

/**
 * Messages of the tools-file loader, so tests can pin them.
 * @internal exported for tests
 */
export const TOOLS_FILE_MESSAGES = {
  emptyDocument: 'the file is empty; expected a mapping with mcp_servers and/or modules',
  multipleDocuments: 'a tools file holds a single YAML document; remove the extra "---"',
  serverName: (name: string) => `server name "${name}" may use only letters, digits, _ and -`,
  serverKind: 'is empty; it needs "command" (a stdio server) or "url" (a Streamable HTTP server)',
  serverBothKinds: 'has both "command" and "url"; a server is either stdio (command) or Streamable HTTP (url)',
  badUrl: (url: string) => `"${url}" is not an http:// or https:// URL`,
  noFolder: (dir: string) => `folder ${dir} does not exist`,
  notFolder: (dir: string) => `${dir} is not a folder`,
  readFile: CONFIG_MESSAGES.readFile,
  yamlValue: CONFIG_MESSAGES.yamlValue,
  tooDeep: (max: number) =>
    `nested more than ${max} levels deep; a tools file needs three (mcp_servers, a server, its env, args or headers), so this part cannot be meant (flatten it)`,
  selfAlias: CONFIG_MESSAGES.selfAlias(''),
} as const;

/** What the YAML reader throws when a file is nested deeper than its recursion can go. */
const STACK_EXHAUSTED = /Maximum call stack size exceeded/;

/** A YAML reader's error in the loader's words. */
function yamlMessage(code: string, message: string): string {
  if (code === 'MULTIPLE_DOCS') return TOOLS_FILE_MESSAGES.multipleDocuments;
  return STACK_EXHAUSTED.test(message) ? TOOLS_FILE_MESSAGES.tooDeep(MAX_CONFIG_DEPTH) : message;
}

interface ServerCommon {
  /** The server's key under `mcp_servers`. */
  name: string;
  timeoutMs: number;
  retries: number;
  /** Whether the file set `retries` (a tool that says it is not idempotent then keeps that count). */
  retriesSet: boolean;
}

/**
 * A stdio server, ready to spawn: variables expanded, `cwd` absolute.
 * @internal exported for tests
 */
export interface StdioServer extends ServerCommon {
  kind: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * A Streamable HTTP server, ready to connect: variables expanded.
 * @internal exported for tests
 */
export interface HttpServer extends ServerCommon {
  kind: 'http';
  url: string;
  headers: Record<string, string>;
}

/** One server of the file. */
export type ServerSpec = StdioServer | HttpServer;

/** One module of the file: the path as written and as resolved. */
export interface ModuleSpec {
  given: string;
  path: string;
}

/** A loaded tools file. `issue` places a later error (a module's, a name clash) in the YAML. */
export interface ToolsFile {
  file: string;
  servers: ServerSpec[];
  modules: ModuleSpec[];
  /**
   * What the worker redacts from every text that leaves an activity (docs/security.md): the values the
   * file took from the worker's environment (`${VAR}`) for `env`, `headers` and `url`, those in `args`
   * whose variable is named like a secret ({@link SECRET_NAME}), and `Authorization` header values.
   */
  secrets: string[];
  /** An error about the part of the file at `path`, located like the loader's own. */
  issue(path: Path, message: string, at?: 'key' | 'value'): ConfigIssue;
}

/** The file when there are no errors, and every error. */
interface ToolsFileResult {
  tools?: ToolsFile;
  errors: ConfigIssue[];
}

/** Environment the `${VAR}` references read. */
export type Environment = Readonly<Record<string, string | undefined>>;

const READ_ERRORS: Record<string, string> = { ENOENT: 'no such file', EISDIR: 'it is a directory', EACCES: 'permission denied' };

/** Reads and loads the tools file `file`; issues name the file as given. Never throws. */
export function loadToolsFile(file: string, env: Environment = process.env): ToolsFileResult {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    return { errors: [{ file, line: 0, col: 0, path: '', message: TOOLS_FILE_MESSAGES.readFile(READ_ERRORS[code] ?? (e as Error).message) }] };
  }
  return parseToolsFile(text, file, env, checkFolder);
}

function checkFolder(dir: string): string | undefined {
  try {
    return fs.statSync(dir).isDirectory() ? undefined : TOOLS_FILE_MESSAGES.notFolder(dir);
  } catch {
    return TOOLS_FILE_MESSAGES.noFolder(dir);
  }
}

/**
 * Loads tools-file `text` read from `file` (relative paths resolve against its folder). `folderError`
 * checks each server's working directory (the disk check of {@link loadToolsFile}). Never throws.
 * @internal exported for tests
 */
export function parseToolsFile(
  text: string,
  file: string,
  env: Environment,
  folderError: (dir: string) => string | undefined = () => undefined,
): ToolsFileResult {
  // the YAML reader recurses once per level: a file nested thousands deep is refused before it is read,
  // as a role file is (docs/semantics.md, "Bounds on hostile input")
  const deep = deepTextOffset(text);
  if (deep !== undefined) return { errors: [{ file, ...positionInText(text, deep), path: '', message: TOOLS_FILE_MESSAGES.tooDeep(MAX_CONFIG_DEPTH) }] };
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const raw = (offset: number, message: string): ConfigIssue => ({ file, ...positionOf(lineCounter, offset), path: '', message });
  const located = (i: PathIssue): ConfigIssue => ({ file, ...at(i), path: formatPath(i.path), message: i.message });
  const at = (i: PathIssue): Position => locate(doc, lineCounter, i);
  if (doc.errors.length > 0) return { errors: doc.errors.map((e) => raw(e.pos[0], yamlMessage(e.code, e.message))) };
  if (doc.contents === null) return { errors: [raw(0, TOOLS_FILE_MESSAGES.emptyDocument)] };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    const message = (e as Error).message;
    return { errors: [raw(0, STACK_EXHAUSTED.test(message) ? TOOLS_FILE_MESSAGES.tooDeep(MAX_CONFIG_DEPTH) : TOOLS_FILE_MESSAGES.yamlValue(message))] };
  }
  // aliases can nest a value deeper than its text, or make it contain itself
  const problem = depthProblem(data);
  if (problem) return { errors: [located({ path: problem.path, message: problem.kind === 'cycle' ? TOOLS_FILE_MESSAGES.selfAlias : TOOLS_FILE_MESSAGES.tooDeep(MAX_CONFIG_DEPTH), at: 'key' })] };

  const issues: PathIssue[] = [];
  const top = parseWithIssues(ToolsFileTopSchema, data);
  if (!top.ok) issues.push(...top.issues);
  const dir = path.dirname(path.resolve(file));
  const servers: ServerSpec[] = [];
  const secrets: string[] = [];
  const rawServers = top.ok ? top.data.mcp_servers : serversOf(data);
  for (const [name, value] of Object.entries(rawServers)) {
    const server = resolveServer(name, value, dir, env, issues, secrets);
    if (server) servers.push(server);
  }
  for (const s of servers) {
    const problem = s.kind === 'stdio' ? folderError(s.cwd) : undefined;
    if (problem) issues.push({ path: ['mcp_servers', s.name, 'cwd'], message: problem });
  }
  const modules = top.ok ? top.data.modules.map((given) => ({ given, path: path.resolve(dir, given) })) : [];
  if (issues.length > 0) return { errors: issues.map(located).sort((a, b) => a.line - b.line || a.col - b.col) };
  return { tools: { file, servers, modules, secrets, issue: (p, message, where) => located({ path: p, message, at: where }) }, errors: [] };
}

/** The servers of a file whose top level failed, so their own errors are reported too. */
function serversOf(data: unknown): Record<string, unknown> {
  const s = (data as { mcp_servers?: unknown } | null)?.mcp_servers;
  return typeof s === 'object' && s !== null && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
}

/** A variable whose name says it holds a secret: its value is redacted even where it is an argument. */
const SECRET_NAME = /key|token|secret|pass|auth|cred|private/i;

function resolveServer(name: string, value: unknown, dir: string, env: Environment, issues: PathIssue[], secrets: string[]): ServerSpec | undefined {
  const base: Path = ['mcp_servers', name];
  if (!SERVER_NAME_PATTERN.test(name)) issues.push({ path: base, message: TOOLS_FILE_MESSAGES.serverName(name), at: 'key' });
  const obj = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  if (obj && 'command' in obj && 'url' in obj) {
    issues.push({ path: base, message: TOOLS_FILE_MESSAGES.serverBothKinds, at: 'key' });
    return undefined;
  }
  if (obj && Object.keys(obj).length === 0) {
    issues.push({ path: base, message: TOOLS_FILE_MESSAGES.serverKind, at: 'key' });
    return undefined;
  }
  const before = issues.length;
  const expand = (p: Path, text: string): string => {
    const r = expandVariables(text, env);
    if (r.ok) {
      // a path or a port passed in `args` is no secret, and redacting it would blank tool results
      secrets.push(...r.used.filter((u) => p[0] !== 'args' || SECRET_NAME.test(u.name)).map((u) => u.value));
      return r.value;
    }
    issues.push({ path: [...base, ...p], message: r.message });
    return text;
  };
  const expandAll = (key: string, record: Record<string, string>) =>
    Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand([key, k], v)]));
  const common = (c: StdioServerConfig | HttpServerConfig): ServerCommon => ({
    name,
    timeoutMs: c.timeout_ms ?? TOOLS_FILE_DEFAULTS.timeoutMs,
    retries: c.retries ?? TOOLS_FILE_DEFAULTS.retries,
    retriesSet: c.retries !== undefined,
  });
  if (obj && meansHttp(obj)) {
    const r = parseWithIssues(HttpServerSchema, value, base);
    if (!r.ok) {
      issues.push(...r.issues);
      return undefined;
    }
    const url = expand(['url'], r.data.url);
    if (issues.length === before && !isHttpUrl(url)) issues.push({ path: [...base, 'url'], message: TOOLS_FILE_MESSAGES.badUrl(url) });
    const headers = expandAll('headers', r.data.headers);
    for (const [key, v] of Object.entries(headers)) if (key.toLowerCase() === 'authorization') secrets.push(v);
    return { kind: 'http', ...common(r.data), url, headers };
  }
  const r = parseWithIssues(StdioServerSchema, value, base);
  if (!r.ok) {
    issues.push(...r.issues);
    return undefined;
  }
  const args = r.data.args.map((a, i) => expand(['args', i], a));
  const serverEnv = expandAll('env', r.data.env);
  const cwd = path.resolve(dir, r.data.cwd ?? '.');
  return { kind: 'stdio', ...common(r.data), command: r.data.command, args, env: serverEnv, cwd };
}

/** Whether a server entry is meant as Streamable HTTP: it has `url`, or, lacking both, looks like it (a typo of `url`, or `headers`). */
function meansHttp(obj: Record<string, unknown>): boolean {
  if ('url' in obj) return true;
  if ('command' in obj) return false;
  return Object.keys(obj).some((k) => k === 'headers' || closest(k, ['command', 'url']) === 'url');
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

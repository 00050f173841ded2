/**
 * `troupe validate <role.yaml> [--plugins file] [--tools tools.yaml] [--json]`: prints every error and
 * warning located as `file:line:col path: message` and a one-line summary; exit 1 on errors. With
 * `--tools`, the tool names agents use are checked against what the tools file offers (its MCP
 * servers are started to list their tools, then closed). A tools file given in place of the role
 * file is checked as a tools file (`validate-tools.ts`).
 */
import { formatIssue } from '../core/config/issues';
import { loadRoleFile } from '../config-file';
import { booleanFlag, stringFlag, type ParsedArgs } from './args';
import { err, out, outJson } from './io';
import { loadPlugins } from './plugins';
import { CLI_TEXTS } from './texts';
import { checkRoleTools } from '../tools/check-role';
import type { ToolsLogger } from '../tools';
import { openToolsOrExplain } from './open-tools';
import { isToolsFile, validateToolsFile } from './validate-tools';

/** Tool servers' chatter stays out of the report; their warnings go to stderr. */
const quietLogger: ToolsLogger = { info: () => undefined, warn: err, error: err };

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  const file = args.positionals[0];
  if (isToolsFile(file)) return validateToolsFile(file, booleanFlag(args, 'json'));
  const pluginError = loadPlugins(stringFlag(args, 'plugins'));
  if (pluginError) {
    err(pluginError);
    return 1;
  }
  const registry = await openToolsOrExplain(stringFlag(args, 'tools'), quietLogger);
  if (registry === false) return 1;
  const offered = registry?.definitions();
  const r = loadRoleFile(file, offered ? (config) => checkRoleTools(config, offered) : undefined);
  await registry?.close();
  const g = r.graph;
  if (booleanFlag(args, 'json')) {
    const summary = g && { agents: Object.keys(g.agents).length, edges: g.edges.length, loopGroups: g.loopGroups.length };
    outJson({ file, kind: 'role', valid: r.errors.length === 0, errors: r.errors, warnings: r.warnings, found: r.found, ...(summary && { summary }) });
    return r.errors.length ? 1 : 0;
  }
  for (const e of r.errors) out(formatIssue(e));
  for (const w of r.warnings) out(CLI_TEXTS.warning(formatIssue(w)));
  if (r.errors.length || !g) {
    out(CLI_TEXTS.invalid(file, r.found.errors, r.found.warnings));
    return 1;
  }
  out(CLI_TEXTS.valid(file, r.found.warnings, Object.keys(g.agents).length, g.edges.length, g.loopGroups.length));
  return 0;
}

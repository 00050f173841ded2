/**
 * `troupe validate <role.yaml> [--plugins file] [--json]`: prints every error and
 * warning located as `file:line:col path: message` and a one-line summary; exit 1 on errors.
 */
import { formatIssue } from '../core/config/issues';
import { loadRoleFile } from '../config-file';
import { booleanFlag, stringFlag, type ParsedArgs } from './args';
import { err, out } from './io';
import { loadPlugins } from './plugins';
import { CLI_TEXT } from './texts';

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  const file = args.positionals[0];
  const pluginError = loadPlugins(stringFlag(args, 'plugins'));
  if (pluginError) {
    err(pluginError);
    return 1;
  }
  const r = loadRoleFile(file);
  const g = r.graph;
  if (booleanFlag(args, 'json')) {
    const summary = g && { agents: Object.keys(g.agents).length, edges: g.edges.length, loopGroups: g.loopGroups.length };
    out(JSON.stringify({ file, valid: r.errors.length === 0, errors: r.errors, warnings: r.warnings, ...(summary && { summary }) }));
    return r.errors.length ? 1 : 0;
  }
  for (const e of r.errors) out(formatIssue(e));
  for (const w of r.warnings) out(CLI_TEXT.warning(formatIssue(w)));
  if (r.errors.length || !g) {
    out(CLI_TEXT.invalid(file, r.errors.length, r.warnings.length));
    return 1;
  }
  out(CLI_TEXT.valid(file, r.warnings.length, Object.keys(g.agents).length, g.edges.length, g.loopGroups.length));
  return 0;
}

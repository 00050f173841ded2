/**
 * `troupe graph <role.yaml> [--format mermaid|dot] [--plugins file]`: the picture of the
 * compiled graph on stdout; config errors and warnings on stderr (exit 1 on errors).
 */
import { formatIssue } from '../core/config/issues';
import { GRAPH_FORMATS, renderGraph, type GraphFormat } from '../core/graph/render';
import { loadRoleFile } from '../config-file';
import { stringFlag, type ParsedArgs } from './args';
import { err, out } from './io';
import { loadPlugins } from './plugins';
import { CLI_TEXTS } from './texts';

function isFormat(f: string): f is GraphFormat {
  return (GRAPH_FORMATS as readonly string[]).includes(f);
}

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  const format = stringFlag(args, 'format') ?? 'mermaid';
  if (!isFormat(format)) {
    err(CLI_TEXTS.badFormat(format, GRAPH_FORMATS));
    return 1;
  }
  const pluginError = loadPlugins(stringFlag(args, 'plugins'));
  if (pluginError) {
    err(pluginError);
    return 1;
  }
  const file = args.positionals[0];
  const r = loadRoleFile(file);
  for (const e of r.errors) err(formatIssue(e));
  for (const w of r.warnings) err(CLI_TEXTS.warning(formatIssue(w)));
  if (r.errors.length || !r.graph) {
    err(CLI_TEXTS.invalid(file, r.found.errors, r.found.warnings));
    return 1;
  }
  out(renderGraph(r.graph, format));
  return 0;
}

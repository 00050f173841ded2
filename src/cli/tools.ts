/**
 * `troupe tools [role.yaml] --tools <tools.yaml> [--json]`: lists every tool a tools file offers, with
 * the name the model sees, the name role files use, where it comes from, its description and its
 * parameters; with a role file, the tools its `approval.tools` gate are marked (a call of one waits
 * for a human). It starts the file's MCP servers (and closes them), and needs no Temporal server.
 * Errors are located in the tools file (or the role file) like `troupe validate`'s; exit 1 on errors.
 */
import { formatIssue } from '../core/config/issues';
import { needsApproval } from '../core/llm/tool-calls';
import { loadRoleFile } from '../config-file';
import type { ToolsLogger } from '../tools/log';
import { listToolsFile, type ToolListing } from '../tools/list';
import { booleanFlag, stringFlag, type ParsedArgs } from './args';
import { err, out, outJson } from './io';

/**
 * The command's texts, so tests can pin them.
 * @internal exported for tests
 */
export const CLI_TOOLS_TEXTS = {
  needsFile: 'troupe tools: --tools <tools.yaml> is required',
  header: (tool: ToolListing, gated: boolean) => `${tool.name}  (${tool.yamlName}, ${tool.source})${gated ? '  [needs approval]' : ''}`,
  description: (text: string) => `    ${text}`,
  parameters: (summary: string) => `    parameters: ${summary}`,
  noParameters: 'none',
  settings: (tool: ToolListing) =>
    `    timeout ${tool.timeoutMs} ms, ${tool.retries} ${tool.retries === 1 ? 'retry' : 'retries'}${tool.strict ? ', strict' : ''}`,
  summary: (file: string, count: number) => `${file}: ${count} tool${count === 1 ? '' : 's'}`,
  invalid: (file: string, count: number) => `${file}: ${count} error${count === 1 ? '' : 's'}`,
} as const;

/** One line of top-level parameters: `path (string, required), head (number)`. */
function parameterSummary(schema: Record<string, unknown>): string {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const parts = Object.entries(properties).map(([key, p]) => {
    const type = Array.isArray(p?.type) ? p.type.join('|') : typeof p?.type === 'string' ? p.type : 'any';
    return `${key} (${type}${required.has(key) ? ', required' : ''})`;
  });
  return parts.length > 0 ? parts.join(', ') : CLI_TOOLS_TEXTS.noParameters;
}

/** The servers' own chatter stays out of the listing; their warnings go to stderr. */
const cliLogger: ToolsLogger = { info: () => undefined, warn: err, error: err };

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  const file = stringFlag(args, 'tools');
  if (!file) {
    err(CLI_TOOLS_TEXTS.needsFile);
    return 1;
  }
  const json = booleanFlag(args, 'json');
  const roleFile = args.positionals[0];
  const role = roleFile ? loadRoleFile(roleFile) : undefined;
  if (role && !role.config) {
    if (json) outJson({ file: roleFile, valid: false, errors: role.errors });
    else {
      for (const e of role.errors) out(formatIssue(e));
      out(CLI_TOOLS_TEXTS.invalid(roleFile, role.errors.length));
    }
    return 1;
  }
  const gated = (t: ToolListing) => needsApproval(role?.config?.approval?.tools, t.yamlName);
  const r = await listToolsFile(file, { logger: cliLogger });
  if (json) {
    const tools = r.tools?.map((t) => (role ? { ...t, gated: gated(t) } : t));
    outJson(tools ? { file, valid: true, tools } : { file, valid: false, errors: r.errors });
    return r.tools ? 0 : 1;
  }
  if (!r.tools) {
    for (const e of r.errors) out(formatIssue(e));
    out(CLI_TOOLS_TEXTS.invalid(file, r.errors.length));
    return 1;
  }
  for (const t of r.tools) {
    out(CLI_TOOLS_TEXTS.header(t, gated(t)));
    if (t.description) out(CLI_TOOLS_TEXTS.description(t.description.split('\n')[0]));
    out(CLI_TOOLS_TEXTS.parameters(parameterSummary(t.parameters)));
    out(CLI_TOOLS_TEXTS.settings(t));
  }
  out(CLI_TOOLS_TEXTS.summary(file, r.tools.length));
  return 0;
}

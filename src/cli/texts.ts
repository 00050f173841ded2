/** User-visible texts of the CLI dispatcher and the validate/graph/help commands. */
import { plural } from '../core/text/format';

export const CLI_TEXTS = {
  unknownFlag: (flag: string, hint: string) => `unknown flag ${flag}${hint}`,
  flagTakesNoValue: (name: string) => `--${name} does not take a value`,
  flagNeedsValue: (name: string) => `--${name} needs a value`,
  unknownCommand: (name: string, hint: string) => `unknown command "${name}"${hint}`,
  seeHelp: 'Run "troupe help" for the list of commands.',
  usageLine: (usage: string) => `usage: ${usage}`,
  positionals: (min: number, max: number, got: number) =>
    min === max ? `expects ${min} argument${min === 1 ? '' : 's'}, got ${got}` : `expects ${min} to ${max} arguments, got ${got}`,
  commandFailed: (command: string, message: string) => `troupe ${command}: ${message}`,
  helpTitle: 'troupe — durable multi-agent collaboration graphs on Temporal',
  helpUsage: 'usage: troupe <command> [options]',
  helpCommands: 'commands:',
  helpMore: 'Run "troupe help <command>" for its options.',
  helpFlags: 'options:',
  valid: (file: string, warnings: number, agents: number, edges: number, loops: number) =>
    `✓ ${file} is valid${warnings ? ` with ${plural(warnings, 'warning')}` : ''} (${plural(agents, 'agent')}, ${plural(edges, 'edge')}, ${plural(loops, 'loop group')})`,
  invalid: (file: string, errors: number, warnings: number) =>
    `✗ ${file}: ${plural(errors, 'error')}${warnings ? `, ${plural(warnings, 'warning')}` : ''}`,
  /** `troupe validate` of a tools file (top-level keys only `mcp_servers`/`modules`). */
  validToolsFile: (file: string, servers: number, modules: number) =>
    `✓ ${file} is valid: a tools file (${plural(servers, 'MCP server')}, ${plural(modules, 'module')}); list its tools with: troupe tools --tools ${file}`,
  invalidToolsFile: (file: string, errors: number) =>
    `✗ ${file}: ${plural(errors, 'error')} (checked as a tools file; once valid, list its tools with: troupe tools --tools ${file})`,
  warning: (text: string) => `warning: ${text}`,
  badFormat: (format: string, formats: readonly string[]) => `--format must be ${formats.join(' or ')}, got "${format}"`,
  pluginsNotFound: (file: string) => `plugins file not found: ${file}`,
  pluginsFailed: (file: string, message: string) => `cannot load plugins from ${file}: ${message}`,
} as const;

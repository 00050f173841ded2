/**
 * Tool names and an agent's tool list: `server.tool` → `server__tool` with foreign characters replaced,
 * long names shortened with a hash, clashes named, module names checked; exact names, globs within a
 * server, built-ins passed through, unknown names listed against what is offered, the 128-tool cap.
 */
import type { ToolDefinition } from '../../../src/core/llm/tool-contract';
import { sha256Hex } from '../../../src/core/text/hash';
import { findCollisions, mcpModelName, mcpYamlName, moduleNameError, MODEL_NAME_PATTERN, NAMING_MESSAGES } from '../../../src/tools/naming';
import { MAX_TOOLS_PER_AGENT, resolveAgentTools, RESOLVE_MESSAGES } from '../../../src/tools/resolve';

describe('model-facing names of MCP tools', () => {
  it('joins server and tool with __ and replaces every character outside [A-Za-z0-9_-]', () => {
    expect(mcpModelName('files', 'write_file')).toBe('files__write_file');
    expect(mcpModelName('gh', 'repo.issues/list v2')).toBe('gh__repo_issues_list_v2');
    expect(mcpYamlName('gh', 'repo.issues')).toBe('gh.repo.issues');
  });

  it('keeps a 64-character name and shortens a 65-character one to 55 + _ + 8 hex of the full name', () => {
    const fits = 'a'.repeat(64 - 'srv__'.length);
    expect(mcpModelName('srv', fits)).toBe(`srv__${fits}`);
    const tool = `${'b'.repeat(60)}.x`;
    const name = mcpModelName('srv', tool);
    const full = `srv__${tool}`;
    expect(name).toBe(`${full.slice(0, 55)}_${sha256Hex(full).slice(0, 8)}`);
    expect(name).toHaveLength(64);
    expect(name).toMatch(MODEL_NAME_PATTERN);
  });

  it('gives different names to long tools that differ only after the cut or only in a replaced character', () => {
    const stem = 'c'.repeat(70);
    expect(mcpModelName('s', `${stem}.one`)).not.toBe(mcpModelName('s', `${stem}.two`));
    expect(mcpModelName('s', `${stem}.x`)).not.toBe(mcpModelName('s', `${stem}_x`));
  });
});

describe('module tool names', () => {
  it('must match the provider pattern and may not take a built-in name', () => {
    expect(moduleNameError('fetch_page')).toBeUndefined();
    expect(moduleNameError('fetch.page')).toBe(NAMING_MESSAGES.moduleName('fetch.page'));
    expect(moduleNameError('x'.repeat(65))).toBe(NAMING_MESSAGES.moduleName('x'.repeat(65)));
    expect(moduleNameError('goal')).toBe(NAMING_MESSAGES.reserved('goal'));
  });
});

describe('collisions', () => {
  it('names both tools when two still share a model-facing name', () => {
    const tools = [
      { name: mcpModelName('a', 'x.y'), label: 'a.x.y (server a)' },
      { name: mcpModelName('a', 'x_y'), label: 'a.x_y (server a)' },
      { name: 'a__x_y', label: 'a__x_y (module ./t.ts)' },
      { name: 'other', label: 'other (module ./t.ts)' },
    ];
    expect(findCollisions(tools).map((c) => c.message)).toEqual([
      NAMING_MESSAGES.collision('a__x_y', 'a.x.y (server a)', 'a.x_y (server a)'),
      NAMING_MESSAGES.collision('a__x_y', 'a.x.y (server a)', 'a__x_y (module ./t.ts)'),
    ]);
    expect(NAMING_MESSAGES.collision('n', 'A', 'B')).toBe('tools A and B both get the model-facing name "n"; rename one (or its server)');
  });
});

const def = (yamlName: string): ToolDefinition => ({
  name: yamlName.replace('.', '__'),
  yamlName,
  description: '',
  parameters: { type: 'object' },
  timeoutMs: 60000,
  retries: 2,
});
const OFFERED = ['files.read_text_file', 'files.write_file', 'files.read_media_file', 'filesystem.read_text_file', 'fetch_page', 'gh.repo.issues'].map(def);

describe('resolving an agent tool list', () => {
  it('resolves exact names, globs within one server and built-ins, in order and without repeats', () => {
    const r = resolveAgentTools(OFFERED, ['goal', 'fetch_page', 'files.read_*', 'files.*', 'signal', 'goal']);
    expect(r).toEqual({
      ok: true,
      set: {
        builtins: ['goal', 'signal'],
        tools: ['fetch_page', 'files.read_text_file', 'files.read_media_file', 'files.write_file'].map((n) => OFFERED.find((d) => d.yamlName === n)),
      },
    });
  });

  it('keeps a glob within its server: not another server sharing the prefix, nor module tools', () => {
    const names = (requested: string[]) => {
      const r = resolveAgentTools(OFFERED, requested);
      return r.ok ? r.set.tools.map((t) => t.yamlName) : r.errors;
    };
    expect(names(['files.*'])).toEqual(['files.read_text_file', 'files.write_file', 'files.read_media_file']);
    expect(names(['gh.*'])).toEqual(['gh.repo.issues']);
    expect(names(['gh.repo.*'])).toEqual(['gh.repo.issues']);
    expect(names(['fetch_*'])).toEqual(['fetch_page']);
    expect(names(['f*'])).toEqual(['fetch_page']);
  });

  it('names a tool that resolves to nothing, with a hint and everything offered', () => {
    const offered = ['goal', 'signal', ...OFFERED.map((d) => d.yamlName)];
    expect(resolveAgentTools(OFFERED, ['files.write_fil', 'web.*'])).toEqual({
      ok: false,
      errors: [RESOLVE_MESSAGES.unknown('files.write_fil', ' (did you mean "files.write_file"?)', offered), RESOLVE_MESSAGES.noMatch('web.*', offered)],
    });
    expect(RESOLVE_MESSAGES.unknown('x', '', ['goal'])).toBe('tool "x" is not offered by this worker; it offers: goal');
  });

  it('refuses to offer one agent more than 128 tools, counting the built-ins', () => {
    const many = Array.from({ length: MAX_TOOLS_PER_AGENT - 1 }, (_, i) => def(`big.t${i}`));
    expect(resolveAgentTools(many, ['big.*', 'goal']).ok).toBe(true);
    expect(resolveAgentTools(many, ['big.*', 'goal', 'signal'])).toEqual({ ok: false, errors: [RESOLVE_MESSAGES.tooMany(129)] });
  });
});

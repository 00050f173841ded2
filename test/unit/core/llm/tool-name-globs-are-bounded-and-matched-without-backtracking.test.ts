/**
 * Tool-name globs (`tools`, `approval.tools`) come from a role file: at most 4 `*` and 200 characters,
 * matched without a regular expression built from the pattern (one left-to-right scan per piece
 * between stars). The matcher agrees with the regex it replaced on every pattern within the bounds
 * (property test), and a pattern of many stars is refused at validation, by the worker's resolution,
 * and matches nothing at run time.
 */
import fc from 'fast-check';
import { loadRoleConfig } from '../../../../src/core/config/load';
import { globMatches, TOOL_GLOB_LIMITS, TOOL_GLOB_TEXTS, toolGlobIssue } from '../../../../src/core/llm/tool-glob';
import { needsApproval } from '../../../../src/core/llm/tool-calls';
import { resolveAgentTools, RESOLVE_MESSAGES } from '../../../../src/tools/resolve';
import type { ToolDefinition } from '../../../../src/core/llm/tool-contract';
import { fuzzRuns } from '../../../helpers/fuzz';

/** The matcher troupe 0.2 built: each `*` a `.*` in an anchored regex (exact, but backtracking). */
function referenceMatches(pattern: string, name: string): boolean {
  const escape = (t: string) => t.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${pattern.split('*').map(escape).join('.*')}$`, 's').test(name);
}

const def = (yamlName: string): ToolDefinition => ({ name: yamlName.replace(/\./g, '__'), yamlName, description: '', parameters: { type: 'object' }, timeoutMs: 1000, retries: 0 });

describe('tool-name globs', () => {
  it('match like the regex they replaced, on every pattern within the bounds', () => {
    const alphabet = fc.constantFrom('a', 'b', '.', '_', '*');
    const pattern = fc.array(alphabet, { maxLength: 12 }).map((cs) => cs.join('')).filter((p) => toolGlobIssue(p) === undefined);
    const name = fc.array(fc.constantFrom('a', 'b', '.', '_'), { maxLength: 14 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(pattern, name, (p, n) => globMatches(p, n) === referenceMatches(p, n)),
      fuzzRuns(2000),
    );
  });

  it('match the everyday patterns', () => {
    expect(globMatches('deploy_*', 'deploy_prod')).toBe(true);
    expect(globMatches('deploy_*', 'redeploy_prod')).toBe(false);
    expect(globMatches('files.*', 'files.write_file')).toBe(true);
    expect(globMatches('*_file', 'files.write_file')).toBe(true);
    expect(globMatches('files.write_file', 'files.write_fileX')).toBe(false);
    expect(globMatches('a.b', 'aXb')).toBe(false);
    expect(globMatches('a*b*a', 'aba')).toBe(true);
    expect(globMatches('a*b*a', 'ab')).toBe(false);
    expect(globMatches('ab*ba', 'aba')).toBe(false);
    expect(globMatches('', '')).toBe(true);
  });

  it('refuse more than 4 stars or 200 characters, and such a pattern matches nothing', () => {
    const stars = `${'*'.repeat(30)}X`;
    expect(toolGlobIssue(stars)).toBe(TOOL_GLOB_TEXTS.tooManyStars(30));
    expect(toolGlobIssue('a'.repeat(201))).toBe(TOOL_GLOB_TEXTS.tooLong(201));
    expect(toolGlobIssue(`${'*'.repeat(TOOL_GLOB_LIMITS.maxStars)}x`)).toBeUndefined();
    expect(globMatches(stars, 'X')).toBe(false);
    expect(needsApproval([stars], 'X')).toBe(false);
  });

  it('are rejected at validation, located, in tools and approval.tools', () => {
    const stars = `deploy_${'*'.repeat(30)}X`;
    const r = loadRoleConfig(
      `
name: globs
agents:
  a: { instructions: "A", tools: ["files.${'*'.repeat(5)}"] }
collaboration: { topology: pipeline, agents: [a] }
approval: { tools: ["${stars}"] }
`,
      'role.yaml',
    );
    expect(r.errors.map((e) => `${e.line}:${e.col} ${e.path}: ${e.message}`)).toEqual([
      `4:35 agents.a.tools[0]: ${TOOL_GLOB_TEXTS.tooManyStars(5)}`,
      `6:21 approval.tools[0]: ${TOOL_GLOB_TEXTS.tooManyStars(30)}`,
    ]);
  });

  it('resolve on the worker without a regex: a glob within a server, and the bounds', () => {
    const offered = [def('files.read_file'), def('files.read_text_file'), def('files.write_file'), def('fetch_page')];
    const r = resolveAgentTools(offered, ['files.read_*']);
    expect(r.ok && r.set.tools.map((t) => t.yamlName)).toEqual(['files.read_file', 'files.read_text_file']);
    const star = resolveAgentTools(offered, ['*']);
    expect(star.ok && star.set.tools.map((t) => t.yamlName)).toEqual(['fetch_page']);
    const wild = `files.${'*'.repeat(30)}X`;
    expect(resolveAgentTools(offered, [wild])).toEqual({ ok: false, errors: [RESOLVE_MESSAGES.outOfBounds(wild, TOOL_GLOB_TEXTS.tooManyStars(30))] });
  });
});

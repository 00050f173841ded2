/**
 * The demo with tools, exactly as the README gives it and with no API key: `troupe dev
 * examples/research-with-tools.yaml --tools examples/tools.yaml --exit` starts its own dev server,
 * the filesystem MCP server and the module tool, and the offline model drives a real tool loop: the
 * researcher lists its folder, writes its notes and counts their words in one reply, reads the
 * notes back, and the run completes.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..', '..');
const NOTES = path.join(ROOT, 'examples', 'workspace', 'researcher-notes.md');

describe('npm run demo -- examples/research-with-tools.yaml --tools examples/tools.yaml', () => {
  beforeAll(() => fs.rmSync(NOTES, { force: true }));
  afterAll(() => fs.rmSync(NOTES, { force: true }));

  test('completes offline with four tool calls, the notes on disk', async () => {
    const env = { ...process.env, OPENAI_API_KEY: '', TEMPORAL_CLI: process.env.TEMPORAL_TEST_CLI ?? process.env.TEMPORAL_CLI ?? '' };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['bin/troupe.js', 'dev', 'examples/research-with-tools.yaml', '--tools', 'examples/tools.yaml', '--exit'],
      { cwd: ROOT, env, timeout: 120_000 },
    );
    expect(stdout).toContain('OFFLINE MODEL');
    expect(stdout).toContain('↳ files.list_allowed_directories({})');
    expect(stdout).toMatch(/↳ files\.write_file\(.*researcher-notes\.md/);
    expect(stdout).toMatch(/↳ word_count\(.*→ \{"words":\d+,"lines":\d+\}/);
    expect(stdout).toMatch(/↳ files\.read_text_file\(.*→ # Notes by researcher/);
    expect(stdout).toContain('completed: editor took the exit edge after 1 round, 2 agent calls');
    expect(fs.readFileSync(NOTES, 'utf8')).toContain('# Notes by researcher');
  }, 150_000);
});

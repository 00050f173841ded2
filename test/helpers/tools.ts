/**
 * A run harness whose worker has tools: a tools file in a temporary folder (the server tests' module
 * tools, plus any MCP servers a test adds), opened as the worker opens it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolRegistry } from '../../src/tools';
import { openTools } from '../../src/worker';
import { startHarness, type Harness, type HarnessOptions } from './runs';

/** The module of the server tests' tools (`append_line`, `shout`, `wait_for_cancel`, `probe`, …). */
export const SERVER_TOOLS = path.resolve(__dirname, '..', 'fixtures', 'tools', 'server-tools.ts');

/** The filesystem MCP server's entry file. */
export const FILESYSTEM_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

export interface ToolsHarness {
  h: Harness;
  tools: ToolRegistry;
  /** The tools file's folder (scratch space for a test). */
  dir: string;
  /** A fresh empty folder inside `dir`. */
  folder(name: string): string;
  close(): Promise<void>;
}

/** Start a harness whose worker loads a tools file with `body` (default: the server tests' module). */
export async function startToolsHarness(body = `modules: [${JSON.stringify(SERVER_TOOLS)}]\n`, opts: HarnessOptions = {}): Promise<ToolsHarness> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-tools-run-')));
  const file = path.join(dir, 'tools.yaml');
  fs.writeFileSync(file, body);
  const tools = await openTools(file);
  const h = await startHarness({ ...opts, tools });
  return {
    h,
    tools,
    dir,
    folder(name) {
      const f = path.join(dir, name);
      fs.mkdirSync(f, { recursive: true });
      return f;
    },
    async close() {
      await h.close();
      await tools.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

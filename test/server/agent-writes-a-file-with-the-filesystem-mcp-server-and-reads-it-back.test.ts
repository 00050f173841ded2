/**
 * An agent uses the real filesystem MCP server (`@modelcontextprotocol/server-filesystem`, started
 * over stdio by the worker from a tools file): it writes a file with `files__write_file` and reads
 * it back. The file is on disk with that content, the read result reached the model's next request,
 * each model call and each tool call is its own activity, and the transcript shows the calls.
 */
import { defaultPayloadConverter } from '@temporalio/client';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openTools } from '../../src/worker';
import type { ToolRegistry } from '../../src/tools';
import { transcriptQuery } from '../../src/contract';
import { FILESYSTEM_SERVER, removeDirs, tempDir, writeToolsFile } from '../fixtures/tools/helpers';
import { startHarness, type Harness } from '../helpers/runs';

describe('the filesystem MCP server as an agent tool', () => {
  let h: Harness;
  let tools: ToolRegistry;
  let workspace: string;

  beforeAll(async () => {
    const dir = tempDir('troupe-fs-');
    workspace = path.join(dir, 'workspace');
    fs.mkdirSync(workspace);
    const file = writeToolsFile(
      `mcp_servers:\n  files:\n    command: node\n    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ./workspace]\n`,
      dir,
    );
    tools = await openTools(file);
    h = await startHarness({ tools });
  });
  afterAll(async () => {
    await h?.close();
    await tools?.close();
    removeDirs();
  });

  test('writes notes.md, reads it back, and the content reaches the model', async () => {
    const notes = path.join(workspace, 'notes.md');
    h.stub.script('researcher', [
      { toolCalls: [{ name: 'files__write_file', arguments: { path: notes, content: 'durable notes\nline two' } }] },
      { toolCalls: [{ name: 'files__read_text_file', arguments: { path: notes } }] },
      { text: 'done: notes written and checked' },
    ]);
    const handle = await h.start(`
name: fs-tools
agents:
  researcher: { instructions: "Research and keep notes.", tools: [files.write_file, files.read_text_file] }
collaboration:
  topology: pipeline
  agents: [researcher]
`);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'done: notes written and checked' });
    expect(fs.readFileSync(notes, 'utf8')).toBe('durable notes\nline two');

    const requests = h.stub.requestsFor('researcher');
    expect(requests).toHaveLength(3);
    expect(requests[0].tools?.map((t: any) => t.function.name)).toEqual(['files__write_file', 'files__read_text_file']);
    expect(requests[2].messages.at(-1)).toMatchObject({ role: 'tool', content: 'durable notes\nline two' });
    expect(r.usage.toolCalls).toEqual({ total: 2, byAgent: { researcher: 2 }, byTool: { 'files.write_file': 1, 'files.read_text_file': 1 }, refused: 0 });

    const steps = await handle.query(transcriptQuery);
    expect(steps[0].tools).toEqual([
      expect.objectContaining({ tool: 'files.write_file', ok: true }),
      expect.objectContaining({ tool: 'files.read_text_file', ok: true, result: 'durable notes line two' }),
    ]);

    const history = await handle.fetchHistory();
    const scheduled = history.events!.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name] : []));
    expect(scheduled).toEqual(['callModel', 'callTool', 'callModel', 'callTool', 'callModel']);
    // the Temporal UI's labels: each model call a step of the agent's dispatch, each tool call its tool and agent
    const labels = history.events!.flatMap((e) =>
      e.activityTaskScheduledEventAttributes && e.userMetadata?.summary ? [defaultPayloadConverter.fromPayload(e.userMetadata.summary)] : [],
    );
    expect(labels).toEqual([
      'researcher · round 1 · wave 1 · step 1',
      'files.write_file · researcher',
      'researcher · round 1 · wave 1 · step 2',
      'files.read_text_file · researcher',
      'researcher · round 1 · wave 1 · step 3',
    ]);
  });
});

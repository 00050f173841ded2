import { buildRunResult } from '../../../../src/core/ending/result';
import { openRequest } from '../../../../src/core/humans/requests';
import { currentDetails, DETAILS_MAX_BYTES, staticDetails, staticSummary } from '../../../../src/core/observe/details';
import { listQuery, searchAttributeFlags } from '../../../../src/core/observe/search';
import { summary, SUMMARY_MAX_BYTES, SUMMARY_TEXTS } from '../../../../src/core/observe/summaries';
import { createRunState } from '../../../../src/core/state/state';
import { utf8ByteLength } from '../../../../src/core/text/utf8';
import { compileYaml } from '../../../helpers/compile';

const graph = compileYaml(`
name: essay
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Review." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 4
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
`);

describe('activity and timer labels', () => {
  it('name the agent and where its call sits; the iteration only for agents in a loop', () => {
    expect(SUMMARY_TEXTS.agentCall({ agent: 'writer', round: 1, wave: 3, iteration: 2 })).toBe('writer · round 1 · wave 3 · iteration 2');
    expect(SUMMARY_TEXTS.agentCall({ agent: 'editor', round: 2, wave: 1 })).toBe('editor · round 2 · wave 1');
    expect(SUMMARY_TEXTS.retry({ agent: 'editor', round: 1, wave: 4 }, 'output')).toBe('editor · round 1 · wave 4 · retry for output');
    expect(SUMMARY_TEXTS.toolLoopStep('writer · round 1 · wave 1', 2)).toBe('writer · round 1 · wave 1 · step 2');
    expect(SUMMARY_TEXTS.judge('critic')).toBe('judge · critic');
    expect(SUMMARY_TEXTS.compaction('writer')).toBe('compaction · writer');
    expect(SUMMARY_TEXTS.toolCall('files.write_file', 'writer')).toBe('files.write_file · writer');
    expect(SUMMARY_TEXTS.timeout(60_000, 2)).toBe('timeout_ms 60000 · round 2');
    expect(SUMMARY_TEXTS.humanWait([{ id: 'r1', kind: 'approval', agent: 'writer' }, { id: 'r2', kind: 'before_exit' }])).toBe(
      'waiting for a human: r1 approval (writer), r2 before_exit',
    );
  });

  it('are one line and fit the 200 bytes Temporal allows, cut at a character boundary', () => {
    const long = summary(`${'é'.repeat(150)}\nsecond line`);
    expect(utf8ByteLength(long)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    expect(long.endsWith('…')).toBe(true);
    expect(long).not.toContain('\n');
    expect(long).not.toContain('\uFFFD');
    expect(summary('a\n  b')).toBe('a b');
  });
});

describe('the static summary and details', () => {
  it('summarise graph, topology and task in one line', () => {
    expect(staticSummary(graph, 'Write   an essay\nabout durable execution')).toBe('essay (topology review-loop): Write an essay about durable execution');
    const brief = staticSummary(graph, 'x'.repeat(500));
    expect(brief.length).toBeLessThan(120);
    expect(brief.endsWith('…')).toBe(true);
  });

  it('hold the Mermaid picture and the stop rules', () => {
    const d = staticDetails(graph);
    expect(d).toContain('```mermaid\nflowchart TD');
    expect(d).toContain('- any of: critic score ≥ 85');
    expect(d).toContain('- loops are capped at 4 iterations per round');
  });
});

describe('the current details', () => {
  it('show the phase, what runs since when, loop iterations against the cap and usage', () => {
    const s = createRunState(graph, 'task', 'wf-1', 0);
    s.round.wave = 3;
    s.round.loopCounters[graph.loopGroups[0].id] = 2;
    const md = currentDetails({ state: s, graph, running: [{ id: 1, kind: 'agent', agent: 'writer', label: 'writer · round 1 · wave 3 · iteration 3', since: Date.UTC(2026, 0, 1, 9, 30, 5) }] });
    expect(md.split('\n')[0]).toBe('**running**');
    expect(md).toContain('| phase | running · round 1 · wave 3 |');
    expect(md).toContain('| running | writer · round 1 · wave 3 · iteration 3 (since 09:30:05 UTC) |');
    expect(md).toContain('| iterations critic ↔ writer | 2 of 4 |');
    expect(md).toContain('| usage | 0 agent calls · 0 tokens |');
  });

  it('give each pending request the commands that decide it, with table pipes and markup escaped', () => {
    const s = createRunState(graph, 'task', 'wf-1', 0);
    openRequest(s, { kind: 'clarification', agent: 'writer', summary: 'which | audience *exactly*?', now: 1 });
    const md = currentDetails({ state: s, graph, running: [] });
    expect(md.split('\n')[0]).toBe('**waiting for a human**');
    expect(md).toContain('which \\| audience \\*exactly\\*?');
    expect(md).toContain('`troupe answer wf-1 "<your answer>" --request r1` or `troupe approve wf-1 --request r1`');
  });

  it('end with the status line of the finished run, and stay within 20 KB however many warnings and requests', () => {
    const s = createRunState(graph, 'task', 'wf-1', 0);
    for (let i = 0; i < 400; i++) openRequest(s, { kind: 'approval', summary: 'x'.repeat(300), now: i });
    expect(utf8ByteLength(currentDetails({ state: s, graph, running: [] }))).toBeLessThanOrEqual(DETAILS_MAX_BYTES);
    const done = createRunState(graph, 'task', 'wf-1', 0);
    const result = buildRunResult(done, { status: 'exhausted', reason: 'max_iterations', reasonText: 'max_iterations: 4 iterations' }, 10);
    const md = currentDetails({ state: done, graph, running: [], result });
    expect(md.split('\n')[0]).toMatch(/^\*\*exhausted: 4 iterations after 1 round, 0 agent calls/);
    expect(md).not.toContain('| running |');
  });
});

describe('search attributes and list queries', () => {
  it('are registered with their types and queried with quoted values', () => {
    expect(searchAttributeFlags()).toEqual(['TroupeGraph=Keyword', 'TroupeStatus=Keyword', 'TroupeReason=Keyword', 'TroupeWaiting=Bool', 'TroupeThread=Keyword']);
    expect(listQuery('troupeRun', {})).toBe("WorkflowType = 'troupeRun'");
    expect(listQuery('troupeRun', { graph: "o'brien", status: 'exhausted', waiting: true })).toBe(
      "WorkflowType = 'troupeRun' AND TroupeGraph = 'o\\'brien' AND TroupeStatus = 'exhausted' AND TroupeWaiting = true",
    );
  });
});

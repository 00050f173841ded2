import { startHarness, type Harness } from '../helpers/runs';

const PIPELINE = `
name: pipe
agents:
  researcher: { instructions: "Research the topic." }
  writer: { instructions: "Write from the research." }
  editor: { instructions: "Edit the draft." }
collaboration:
  topology: pipeline
  agents: [researcher, writer, editor]
`;

describe('pipeline of 3', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('each agent receives its predecessor output; completed/exit', async () => {
    h.stub.script('researcher', [{ text: 'FACTS: tides are caused by the moon' }]);
    h.stub.script('writer', [{ text: 'DRAFT built on tides facts' }]);
    h.stub.script('editor', [{ text: 'FINAL edited article' }]);

    const result = await h.run(PIPELINE, { task: 'Explain tides' });

    expect(result.status).toBe('completed');
    expect(result.reason).toBe('exit');
    expect(result.finalAgent).toBe('editor');
    expect(result.finalText).toBe('FINAL edited article');
    expect(result.steps).toBe(3);
    const [r, w, e] = ['researcher', 'writer', 'editor'].map((a) => h.stub.requestsFor(a));
    expect([r.length, w.length, e.length]).toEqual([1, 1, 1]);
    expect(r[0].prompt).toContain('Explain tides');
    expect(w[0].prompt).toContain('FACTS: tides are caused by the moon');
    expect(e[0].prompt).toContain('DRAFT built on tides facts');
    expect(e[0].prompt).not.toContain('FACTS: tides are caused by the moon');
    expect(result.usage.agentCalls).toBe(3);
    expect(result.results.writer).toMatchObject({ text: 'DRAFT built on tides facts', count: 1 });
    expect(result.results.writer.hash).toMatch(/^[0-9a-f]{12}$/);
  });
});

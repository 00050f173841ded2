/**
 * Teams that go on (docs/semantics.md, "Teams that go on"), model-chosen routes, through the real
 * workflow, worker and HTTP stub:
 *
 * - a swarm ended by `handoff: user` (the termination condition, so the question was never asked of
 *   a human) continues with the agent that asked: its first dispatch is that agent's, and the new
 *   task reaches it as the answer to its question, in the thread after the handoff and the question;
 * - a selector team continued: the selector's `{history}` holds the old thread, and the previous
 *   speaker of the old run is no candidate of the first turn (allow_repeated_speaker is false).
 */
import { startRun } from '../../src/client';
import { PROMPT_TEXTS } from '../../src/core/prompts/build';
import { startHarness, compileYaml, type Harness } from '../helpers/runs';
import { uniqueWorkflowId } from '../helpers/temporal';

const transfer = (to: string, message?: string) => ({ name: `transfer_to_${to}`, arguments: message ? { message } : {} });

const SUPPORT = `
name: support
agents:
  triage: { instructions: "Route.", handoffs: [billing] }
  billing: { instructions: "Bill.", handoffs: [user, triage] }
collaboration:
  topology: swarm
  agents: [triage, billing]
  termination: { any_of: [{ handoff: user }, { text_mention: TERMINATE }] }
`;

const CREW = `
name: crew
agents:
  planner: { description: Plans the work, instructions: "Plan." }
  coder: { description: Writes the code, instructions: "Code." }
  reviewer: { description: Reviews the code, instructions: "Review." }
collaboration:
  topology: selector
  agents: [planner, coder, reviewer]
  max_turns: 2
`;

describe('a continued team with model-chosen routes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('a swarm ended by handoff: user goes on with the agent that asked; the new task is the answer to its question, in order', async () => {
    const graph = compileYaml(SUPPORT);
    h.stub.script('triage', [{ toolCalls: [transfer('billing', 'The customer was charged twice.')] }]);
    h.stub.script('billing', [{ toolCalls: [transfer('user', 'Which invoice was charged twice?')] }, { text: 'Refunded INV-0342. TERMINATE' }]);
    const first = await h.start(graph, { task: 'I was charged twice', workflowId: uniqueWorkflowId('support') });
    const r1 = await first.result();
    expect(r1).toMatchObject({ status: 'completed', reason: 'handoff' });
    expect(r1.unanswered ?? []).toEqual([]);
    const ts = r1.teamState!;
    expect(ts.thread.map((e) => [e.agent, e.kind])).toEqual([
      ['user', 'task'],
      ['triage', 'handoff'],
      ['billing', 'question'],
    ]);
    expect(ts.cursor).toEqual({ kind: 'wave', wave: [expect.objectContaining({ agent: 'billing' })] });

    const before = h.stub.requests.length;
    const second = await startRun(h.client, { role: graph, task: 'The invoice is INV-0342.', continueFrom: first.workflowId, taskQueue: h.worker.taskQueue });
    const r2 = await second.result();
    expect(r2).toMatchObject({ status: 'completed', reason: 'text_mention', finalText: 'Refunded INV-0342. TERMINATE' });
    const asked = h.stub.requests.slice(before).filter((q) => q.kind === 'agent');
    // the agent that asked speaks first; triage is not asked again
    expect(asked.map((q) => q.agent)).toEqual(['billing']);
    const prompt = asked[0].prompt;
    // the work answered stays its task, as when a human answers in a run
    expect(prompt).toContain(`${PROMPT_TEXTS.taskHeading}\nI was charged twice\n`);
    const order = [
      `${PROMPT_TEXTS.threadEntry('user', false)}\nI was charged twice`,
      `${PROMPT_TEXTS.threadEntry('triage', false)}${PROMPT_TEXTS.threadEvent.handoff('billing', true)}\nThe customer was charged twice.`,
      `${PROMPT_TEXTS.threadEntry('billing', true)}${PROMPT_TEXTS.threadEvent.question()}\nWhich invoice was charged twice?`,
      `${PROMPT_TEXTS.threadEntry('user', false)}${PROMPT_TEXTS.threadEvent.answer('billing', true)}\nThe invoice is INV-0342.`,
    ].map((entry) => prompt.indexOf(entry));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // the answer is in the thread after the question, and it closes the prompt as the note that says to act on it (docs/teams.md, "Handoffs")
    expect(prompt.split('INV-0342').length - 1).toBe(2);
    expect(prompt.trimEnd().endsWith(PROMPT_TEXTS.actOnAnswer)).toBe(true);
    expect(r2.teamState!.thread.at(-2)).toEqual({ agent: 'user', kind: 'answer', to: 'billing', text: 'The invoice is INV-0342.' });
  });

  test('a selector continued: its history holds the old thread, and the previous speaker is no candidate of its first turn', async () => {
    const graph = compileYaml(CREW);
    h.stub.script('selector:team', [{ text: 'planner' }, { text: 'coder' }]);
    h.stub.script('planner', [{ text: 'plan: three steps' }]);
    h.stub.script('coder', [{ text: 'code: step one written' }]);
    const first = await h.start(graph, { task: 'write a parser', workflowId: uniqueWorkflowId('crew') });
    const r1 = await first.result();
    expect(r1).toMatchObject({ status: 'exhausted', reason: 'max_turns' });
    expect(r1.teamState!.cursor).toEqual({ kind: 'select', previous: 'coder' });

    h.stub.reset();
    h.stub.script('selector:team', [{ text: 'reviewer' }, { text: 'coder' }]);
    const second = await startRun(h.client, { role: graph, task: 'now add tests', continueFrom: first.workflowId, taskQueue: h.worker.taskQueue });
    const r2 = await second.result();
    expect(r2).toMatchObject({ status: 'exhausted', reason: 'max_turns' });
    const [select] = h.stub.requestsFor('selector:team');
    const history = select.messages[0].content;
    const order = ['write a parser', 'plan: three steps', 'code: step one written', 'now add tests'].map((t) => history.indexOf(t));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // each task is in the history once: the continued thread holds them as entries
    expect(history.split('write a parser').length - 1).toBe(1);
    // coder spoke last in the old run: allow_repeated_speaker false leaves it out of the first turn
    expect(history).toContain("['planner', 'reviewer']");
    expect(h.stub.requestsFor('selector:team')[1].messages[0].content).toContain("['planner', 'coder']");
    expect(h.stub.requests.filter((q) => q.kind === 'agent').map((q) => q.agent)).toEqual(['reviewer', 'coder']);
  });
});

import { compactionMessages, } from '../../../src/activities/compaction';
import { estimateMessagesTokens } from '../../../src/core/prompts/bounds';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';

const base = { agent: 'writer', summary: 'earlier: draft 1 scored 60', maxSummaryTokens: 125 };

describe('compactionMessages', () => {
  test('without a context_window the entries are sent whole', () => {
    const entries = ['writer: ' + 'x'.repeat(20_000)];
    const messages = compactionMessages({ ...base, model: { name: 'm' }, entries });
    expect(messages).toEqual([
      { role: 'system', content: ACTIVITY_TEXTS.compaction.system('writer', 125) },
      { role: 'user', content: ACTIVITY_TEXTS.compaction.user(base.summary, entries) },
    ]);
  });

  test('with a context_window the request plus the summary it asks for fits the window', () => {
    const entries = ['writer: ' + 'x'.repeat(20_000), 'critic: ' + 'y'.repeat(400)];
    const messages = compactionMessages({ ...base, model: { name: 'm', contextWindow: 1000 }, entries });
    expect(estimateMessagesTokens(messages) + base.maxSummaryTokens).toBeLessThanOrEqual(1000);
    expect(messages[1].content).toContain('[troupe: truncated');
    expect(messages[1].content).toContain('critic: ' + 'y'.repeat(400));
    expect(messages[1].content).toContain(base.summary);
  });

  test('entries that fit the window are sent whole', () => {
    const entries = ['writer: short'];
    const messages = compactionMessages({ ...base, model: { name: 'm', contextWindow: 1000 }, entries });
    expect(messages[1].content).toBe(ACTIVITY_TEXTS.compaction.user(base.summary, entries));
  });
});

/**
 * What `troupe chat` makes of a typed line (docs/cli.md, "troupe chat"): at its prompt a task,
 * nothing, `/exit` or `/help` (a path is a task, not a command); at a request a decision — a gate
 * takes `y [note]` or `n <reason>`, never free text, and a question takes its answer or `/reject
 * <reason>`; and a request as the chat shows it, a gated call's arguments whole, with its digest.
 */
import { CHAT_TEXTS, parseChatLine, parseDecision, requestLines, requestPrompt } from '../../../src/cli/chat-lines';
import type { PendingRequest } from '../../../src/core/humans/requests';

describe('a line typed at the chat prompt', () => {
  test.each([
    ['summarise the thread', { kind: 'task', text: 'summarise the thread' }],
    ['  and bring cake  ', { kind: 'task', text: 'and bring cake' }],
    ['', { kind: 'empty' }],
    ['   \t ', { kind: 'empty' }],
    ['/exit', { kind: 'exit' }],
    [' /EXIT ', { kind: 'exit' }],
    ['/quit', { kind: 'exit' }],
    ['/help', { kind: 'help' }],
    ['/frobnicate', { kind: 'unknown', command: 'frobnicate' }],
    ['/etc/hosts is empty, why?', { kind: 'task', text: '/etc/hosts is empty, why?' }],
    ['/exit now please', { kind: 'task', text: '/exit now please' }],
  ])('%j', (typed, expected) => {
    expect(parseChatLine(typed)).toEqual(expected);
  });
});

describe('a line typed at a request', () => {
  const gate = { kind: 'tool_call' } as const;
  const question = { kind: 'handoff' } as const;

  test('a gate or an approval takes y [note] or n <reason>, and nothing else decides it', () => {
    for (const r of [gate, { kind: 'before_exit' } as const, { kind: 'approval' } as const]) {
      expect(parseDecision(r, 'y')).toEqual({ kind: 'approve' });
      expect(parseDecision(r, ' YES ')).toEqual({ kind: 'approve' });
      expect(parseDecision(r, 'y ship it')).toEqual({ kind: 'approve', note: 'ship it' });
      expect(parseDecision(r, 'n not on a Friday')).toEqual({ kind: 'reject', reason: 'not on a Friday' });
      expect(parseDecision(r, 'no')).toEqual({ kind: 'again', hint: CHAT_TEXTS.needReason });
      expect(parseDecision(r, 'sure, go ahead')).toEqual({ kind: 'again', hint: CHAT_TEXTS.yesOrNo });
      expect(parseDecision(r, 'yesterday')).toEqual({ kind: 'again', hint: CHAT_TEXTS.yesOrNo });
      expect(parseDecision(r, '')).toEqual({ kind: 'again', hint: CHAT_TEXTS.yesOrNo });
      expect(requestPrompt(r)).toBe(CHAT_TEXTS.yesOrNoPrompt);
    }
  });

  test('a question takes the answer as typed, or /reject <reason>; an empty line is asked again', () => {
    for (const r of [question, { kind: 'clarification' } as const, { kind: 'blocked' } as const]) {
      expect(parseDecision(r, ' INV-0342 ')).toEqual({ kind: 'answer', text: 'INV-0342' });
      expect(parseDecision(r, 'y')).toEqual({ kind: 'answer', text: 'y' });
      expect(parseDecision(r, '/reject none of your business')).toEqual({ kind: 'reject', reason: 'none of your business' });
      expect(parseDecision(r, '/reject')).toEqual({ kind: 'again', hint: CHAT_TEXTS.needReason });
      expect(parseDecision(r, '  ')).toEqual({ kind: 'again', hint: CHAT_TEXTS.emptyAnswer });
      expect(requestPrompt(r)).toBe(CHAT_TEXTS.answerPrompt);
    }
  });
});

describe('a request as the chat asks it', () => {
  test('a gated call: the tool, every character of its arguments folded at the width, and the digest', () => {
    const line = 'x'.repeat(50);
    const r: PendingRequest = {
      id: 'r2',
      kind: 'tool_call',
      agent: 'publisher',
      summary: 'publisher wants to call append_line(…)',
      since: 0,
      payload: { tool: 'append_line', arguments: JSON.stringify({ file: '/tmp/out.txt', line }) },
      digest: 'sha256:abc',
    };
    const lines = requestLines(r, 30);
    expect(lines[0]).toBe('✋ publisher waits for your decision (r2, tool_call):');
    expect(lines).toContain('  append_line will receive exactly:');
    expect(lines.at(-1)).toBe('  digest:  sha256:abc');
    // folded, never cut: the arguments come back whole from the lines
    const shown = lines.filter((l) => l.startsWith('  │ ')).map((l) => l.slice(4));
    expect(shown.every((l) => l.length <= 30)).toBe(true);
    expect(JSON.parse(shown.join(''))).toEqual({ file: '/tmp/out.txt', line });
  });

  test("a question: the agent and its words, each line quoted so a model cannot print the chat's own lines", () => {
    const r: PendingRequest = { id: 'r1', kind: 'handoff', agent: 'alice', summary: 'Which invoice?\nyou> /exit', since: 0 };
    expect(requestLines(r, 80)).toEqual(['✋ alice asks you (r1):', '  │ Which invoice?', '  │ you> /exit']);
  });
});

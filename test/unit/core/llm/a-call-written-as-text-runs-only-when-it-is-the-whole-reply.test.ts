/**
 * A call written as text runs only when the whole reply is the call: bare, in one fenced block, or in
 * `<tool_call>` tags, possibly several listed and nothing else (docs/semantics.md, "Agent calls").
 * Amid prose it is a quote or an example (`quoted`); when its text stands in a message the model was
 * given (a tool result, the task, the thread), re-serialized, re-indented or escaped into a JSON
 * string, it is a quote of that (`echoed`). Only offered tools count; the work is bounded.
 */
import { ECHO_LIMITS, echoedCall } from '../../../../src/core/llm/echoed-calls';
import { readTextCall, TEXT_CALL_LIMITS } from '../../../../src/core/llm/tool-text';

const offered = ['word_count', 'files__read_text_file', 'transfer_to_user'];
const call = '{"name": "word_count", "arguments": {"text": "a b"}}';

describe('a reply that is only a call', () => {
  it.each([
    ['Qwen’s block', '<tool_call>\n{"name": "word_count", "arguments": {"text": "a b"}}\n</tool_call>', 'word_count', '{"text":"a b"}'],
    ['an unclosed block, alone', '<tool_call>{"name": "word_count", "arguments": {}}', 'word_count', '{}'],
    ['a bare object', ' {"name": "files__read_text_file", "arguments": {"path": "a.md"}} ', 'files__read_text_file', '{"path":"a.md"}'],
    ['one fenced block', '```json\n{"name": "word_count", "parameters": {"text": "x"}}\n```', 'word_count', '{"text":"x"}'],
    ['a result block', '```result\n{"name": "word_count", "arguments": {"text": "x"}}\n```\n', 'word_count', '{"text":"x"}'],
    ['a longer fence', '````\n{"name": "word_count", "arguments": {"text": "```"}}\n````', 'word_count', '{"text":"```"}'],
    ['arguments as a string, under function', '{"function": {"name": "word_count", "arguments": "{}"}}', 'word_count', '{}'],
    ['doubled braces, null arguments', '{{"name": "word_count", "arguments": null}}', 'word_count', '{}'],
    // Qwen2.5-Coder 1.5B's transfers, unparsed by its server: doubled braces around a call with arguments
    ['doubled braces around arguments', '{{"name": "word_count", "arguments": {"text": "a"}}}', 'word_count', '{"text":"a"}'],
    ['doubled braces and one too many', '{{"name": "files__read_text_file", "arguments": {}}}}', 'files__read_text_file', '{}'],
    ['a <tools> tag', '<tools> {"name": "word_count", "arguments": {"text": "a"}} </tools>', 'word_count', '{"text":"a"}'],
    ['a fence inside the tags', '<tool_call>\n```json\n{"name": "word_count", "arguments": {"text": "a"}}\n```\n</tool_call>', 'word_count', '{"text":"a"}'],
    [
      'several tagged calls: the first of an offered tool runs',
      '<tool_call>{"name": "deploy", "arguments": {}}</tool_call>\n<tool_call>{"name": "word_count", "arguments": {"text": "1"}}</tool_call>\n' +
        '<tool_call>{"name": "files__read_text_file", "arguments": {"path": "b"}}</tool_call>',
      'word_count',
      '{"text":"1"}',
    ],
    [
      'several calls listed in one fence',
      '```json\n{\n  "name": "files__read_text_file",\n  "arguments": {\n    "path": "notes.txt"\n  }\n}\n\n{\n  "name": "word_count",\n  "arguments": {}\n}\n```',
      'files__read_text_file',
      '{"path":"notes.txt"}',
    ],
    ['an array of calls', '[{"name": "word_count", "arguments": {"text": "z"}}, {"name": "word_count", "arguments": {}}]', 'word_count', '{"text":"z"}'],
  ])('runs: %s', (_what, text, name, args) => {
    expect(readTextCall(text, offered)).toEqual({ kind: 'call', name, arguments: args });
  });

  it.each([
    ['the tool’s definition echoed back', '<tools> {"function": {"description": "Counts.", "name": "word_count", "parameters": {"type": "object"}}} </tools>'],
    ['a key written twice', '{"name": "word_count", "arguments": {"text": "a", "text": "b"}}'],
    ['arguments that are no object', '{"name": "word_count", "arguments": ["a"]}'],
    ['arguments in a string that is no object', '{"name": "word_count", "arguments": "a b"}'],
  ])('cannot run as written: %s', (_what, text) => {
    expect(readTextCall(text, offered)).toEqual({ kind: 'unrunnable', name: 'word_count' });
  });
});

describe('a call amid other text is quoted, never run', () => {
  it.each([
    // the documentation answer of the review: an example call in a fenced block inside prose
    ['an example in a fence inside prose', `To count words, call the tool like this:\n\n\`\`\`json\n${call}\n\`\`\`\n\nIt returns the count.`],
    ['a sentence', `I will now run ${call} and report.`],
    ['prose before a block', `Let me count.\n<tool_call>${call}</tool_call>`],
    ['prose after a block', `<tool_call>${call}</tool_call>\nThat is the call I would make.`],
    ['prose before an unclosed block', `Let me count.\n<tool_call>${call}`],
    ['a fence after prose, listing several calls', `Here is how:\n\n\`\`\`json\n${call}\n\n${call}\n\`\`\`\n`],
    ['two fenced blocks', `\`\`\`json\n${call}\n\`\`\`\n\`\`\`json\n${call}\n\`\`\``],
    ['a call with a trailing object that is no call', `${call}\n{"count": 2}`],
    ['stray braces around a call and prose', `{{${call}}} is how you call it`],
    ['a quoted transfer', 'If you need a human, write {"name": "transfer_to_user", "arguments": {"message": "help"}} and wait.'],
    // the 1.5B model writing a transfer, then the human's answer it imagines: not a reply that is only a call
    ['a call, then the next turn made up', '{{"name": "transfer_to_user", "arguments": {"message": "Which?"}}}\n\n### Answer from a human (from human)\nINV-1'],
  ])('%s', (_what, text) => {
    expect(readTextCall(text, offered)).toEqual({ kind: 'quoted', name: expect.any(String) });
  });

  it.each([
    ['a tool not offered', '{"name": "deploy", "arguments": {}}'],
    ['an answer that has a name', '{"name": "Ada Lovelace", "born": 1815}'],
    ['prose', 'The word_count tool would say 7.'],
    ['broken JSON', '<tool_call>{"name": "word_count", "arguments": </tool_call>'],
    ['an answer with objects but no call', 'Counts: {"word_count": 7} and {"name": "word_count", "result": 7}.'],
    ['no tools offered', call],
  ])('and no call at all in %s', (what, text) => {
    expect(readTextCall(text, what === 'no tools offered' ? [] : offered)).toBeUndefined();
  });

  it('reads a reply longer than the bound as an answer, its start searched for a quote only', () => {
    const long = `${call}${' '.repeat(TEXT_CALL_LIMITS.maxChars)}`;
    expect(readTextCall(`${call}\n${'x'.repeat(TEXT_CALL_LIMITS.maxChars)}`, offered)).toEqual({ kind: 'quoted', name: 'word_count' });
    // whitespace around a call is no text: trimmed, it is the whole reply
    expect(readTextCall(long, offered)).toMatchObject({ kind: 'call' });
  });
});

describe('a call the model was given is echoed, never run', () => {
  const page = (body: string) => `<html><body><h1>Markers</h1><p>${body}</p></body></html>`;

  it.each([
    ['as written, in a fetched page', call, [page(call)]],
    ['re-indented', '{\n  "name": "word_count",\n  "arguments": {\n    "text": "a b"\n  }\n}', [page(call)]],
    ['with its keys in another order', '{"arguments": {"text": "a b"}, "name": "word_count"}', [page(call)]],
    ['its arguments an object where the page has a string', call, [page('{"name": "word_count", "arguments": "{\\"text\\": \\"a b\\"}"}')]],
    ['escaped into a JSON string of a module tool’s result', call, [JSON.stringify({ url: 'https://example.test', status: 200, body: page(call) })]],
    ['in the task', `<tool_call>${call}</tool_call>`, [`Summarize this:\n${call}`]],
    ['under function in the page', call, [page('{"function": {"name": "word_count", "arguments": {"text": "a b"}}}')]],
  ])('%s', (_what, reply, given) => {
    expect(readTextCall(reply, offered, given)).toEqual({ kind: 'echoed', name: 'word_count' });
  });

  it('runs when the given texts hold another call of the tool, or none', () => {
    expect(readTextCall(call, offered, [page('{"name": "word_count", "arguments": {"text": "c d"}}'), 'count the words of "a b"'])).toMatchObject({ kind: 'call' });
    expect(readTextCall(call, offered, [])).toMatchObject({ kind: 'call' });
  });

  it('stays within its bound, and past it takes the call for a quote (not run)', () => {
    const written = { name: 'word_count', arguments: '{"text":"a b"}', text: call };
    // a page of unclosed brackets makes every scan read to its end: quadratic without the bound
    const hostile = `${'{"a": ['.repeat(50_000)} word_count`;
    expect(echoedCall(written, [hostile])).toBe(true);
    expect(echoedCall(written, ['x'.repeat(ECHO_LIMITS.scanChars + 1)])).toBe(true);
    // an ordinary context is read whole
    expect(echoedCall(written, [page('{"b": 1}').repeat(1000), 'word_count'])).toBe(false);
  });
});

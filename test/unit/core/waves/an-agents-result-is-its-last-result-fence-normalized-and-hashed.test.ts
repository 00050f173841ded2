import fc from 'fast-check';
import { nativeResultHash } from '../../../../src/activities/agent';
import { hashResult, sha256Hex } from '../../../../src/core/text/hash';
import { utf8Bytes } from '../../../../src/core/text/utf8';
import { captureResult, extractScore, normalizeResult, resultOf } from '../../../../src/core/waves/capture';
import { capturedResult, recordedForm, recordResult } from '../../../../src/core/waves/record';
import { createRunState, TEXT_CAP_BYTES } from '../../../../src/core/state/state';
import { completeGraph, reply } from '../../fixtures/drive-machine';

describe('captureResult', () => {
  it('takes the content of the last ```result block (rolebox case 50)', () => {
    const text = 'notes\n```result\nfirst\n```\nmore notes\n```result\nsecond\nline\n```\ntrailing';
    expect(captureResult(text)).toBe('second\nline');
  });

  it('falls back to the whole text when there is no result fence', () => {
    expect(captureResult('just an answer\n```js\ncode\n```')).toBe('just an answer\n```js\ncode\n```');
  });

  it('accepts opening and closing lines with surrounding whitespace and CRLF endings', () => {
    expect(captureResult('x\r\n  ```result  \r\nbody\r\n   ```\r\n')).toBe('body');
  });

  it('ignores fences whose opening line is not exactly ```result', () => {
    expect(captureResult('```results\nA\n```\n```result json\nB\n```')).toBe('```results\nA\n```\n```result json\nB\n```');
  });

  it('ignores an unclosed result fence and keeps the last closed one', () => {
    expect(captureResult('```result\nclosed\n```\n```result\nnever closed')).toBe('closed');
    expect(captureResult('```result\nnever closed')).toBe('```result\nnever closed');
  });

  it('keeps an empty closed result block as the empty result', () => {
    expect(captureResult('text\n```result\n```')).toBe('');
  });
});

describe('normalizeResult', () => {
  it('collapses whitespace runs to one space and trims (rolebox case 50)', () => {
    expect(normalizeResult('hello \t \n world')).toBe('hello world');
    expect(normalizeResult('  \n\t ')).toBe('');
  });

  it('is the text with every whitespace run replaced by one space, then trimmed, for any text', () => {
    const piece = fc.oneof(fc.string(), fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', ' \n ', '\u00a0', '\u2028', '\ufeff', '\u3000', 'x'));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (parts) => {
        const text = parts.join('');
        expect(normalizeResult(text)).toBe(text.replace(/\s+/g, ' ').trim());
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps case', () => {
    expect(normalizeResult(' Score:  85 ')).toBe('Score: 85');
  });
});

describe('hashResult', () => {
  it('is the first 12 hex characters of SHA-256 (known vector)', () => {
    expect(hashResult('hello world')).toBe('b94d27b9934d');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('matches /^[0-9a-f]{12}$/ and differs for different texts', () => {
    expect(hashResult('a')).toMatch(/^[0-9a-f]{12}$/);
    expect(hashResult('a')).not.toBe(hashResult('b'));
  });

  it('encodes UTF-8 exactly as TextEncoder, including astral characters and lone surrogates', () => {
    for (const s of ['研究者 -> 撰写者', 'emoji 😀 ok', 'é', '\ud800 lone', 'tail \udc00', '\u07ff\u0800\uffff']) {
      expect(Array.from(utf8Bytes(s))).toEqual(Array.from(new TextEncoder().encode(s)));
    }
  });
});

describe('the hash the agent activity sends', () => {
  const piece = fc.oneof(
    fc.string(),
    fc.constantFrom('```result\n', '\n```\n', '  \t\n', '\r\n', 'é', '😀', '\uD83D', '\uDE00', '\u00a0', '\u2028'),
  );
  const text = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));

  it('is the hash the workflow computes of the recorded form, for any text (native SHA-256 against the sandbox one)', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(nativeResultHash(t)).toBe(hashResult(recordedForm(t).normalized));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees past the 64 KiB cut of a recorded result', () => {
    const long = `notes\n\`\`\`result\n${'é word '.repeat(TEXT_CAP_BYTES / 4)}\n\`\`\``;
    expect(recordedForm(long).captured.length).toBeLessThan(long.length);
    expect(nativeResultHash(long)).toBe(hashResult(recordedForm(long).normalized));
  });

  it('is what the workflow records when sent; a result without one is hashed in the workflow', () => {
    const raw = 'draft\n```result\n  hello\n  world \n```';
    expect(capturedResult(raw)).toEqual({ captured: '  hello\n  world ', normalized: 'hello world', hash: 'b94d27b9934d' });
    expect(capturedResult(raw, 'sent12345678').hash).toBe('sent12345678');
    const graph = completeGraph({ edges: [{ from: 'parent', to: 'writer', exit: true }] });
    const state = createRunState(graph, 'task', 'wf', 0);
    recordResult(state, graph, { item: { agent: 'writer', triggers: [] }, result: { ...reply(raw), resultHash: 'sent12345678' } }, 1);
    recordResult(state, graph, { item: { agent: 'writer', triggers: [] }, result: reply(raw) }, 2);
    expect(state.transcript.map((step) => step.hash)).toEqual(['sent12345678', 'b94d27b9934d']);
  });
});

describe('resultOf', () => {
  it('captures, normalizes and hashes in one step', () => {
    const r = resultOf('draft\n```result\n  hello\n  world \n```');
    expect(r).toEqual({ text: 'hello world', hash: 'b94d27b9934d' });
  });
});

describe('extractScore', () => {
  it.each([
    ['Code review score: 85', 85],
    ['**Score:** 85', 85],
    ['Score: 8.5', 8.5],
    ['score = 9', 9],
    ['score: -3', -3],
    ['SCORE:**  70', 70],
    ['score: 40 then score: 90', 40],
  ])('reads %j as %p', (text, score) => {
    expect(extractScore(text)).toBe(score);
  });

  it.each(['subscore: 90', 'score: high', 'no number here', 'scores: 9', 'score 9'])('finds no score in %j', (text) => {
    expect(extractScore(text)).toBeNull();
  });
});

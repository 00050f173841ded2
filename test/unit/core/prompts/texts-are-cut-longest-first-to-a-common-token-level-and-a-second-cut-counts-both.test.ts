import { cutToTokens, estimateTokens, fitTexts } from '../../../../src/core/prompts/bounds';
import { capText, recapText, utf8ByteLength } from '../../../../src/core/text/utf8';

describe('cutToTokens', () => {
  test('a text within the limit is returned unchanged', () => {
    expect(cutToTokens('abcdefgh', 2)).toBe('abcdefgh');
    expect(cutToTokens('', 0)).toBe('');
  });

  test('ASCII is cut to 4 characters per token', () => {
    expect(cutToTokens('a'.repeat(100), 10)).toBe('a'.repeat(40));
    expect(cutToTokens('abcdefghij', 2)).toBe('abcdefgh');
  });

  test('CJK and emoji count one token each and are never split', () => {
    expect(cutToTokens('潮汐潮汐', 3)).toBe('潮汐潮');
    expect(cutToTokens('😀😀😀', 2)).toBe('😀😀');
    const mixed = 'ab潮cd汐ef';
    for (let max = 0; max <= estimateTokens(mixed); max += 1) {
      const cut = cutToTokens(mixed, max);
      expect(estimateTokens(cut)).toBeLessThanOrEqual(max);
      expect(mixed.startsWith(cut)).toBe(true);
    }
  });
});

describe('fitTexts', () => {
  const tokens = (texts: string[]) => texts.reduce((s, t) => s + estimateTokens(t), 0);

  test('texts that already fit are returned as they are', () => {
    const texts = ['short', 'also short'];
    expect(fitTexts(texts, (t) => tokens(t) <= 100)).toBe(texts);
  });

  test('the longest text is cut first, to a common level, as little as needed', () => {
    const long = 'x'.repeat(4000);
    const short = 'y'.repeat(40);
    const fitted = fitTexts([long, short], (t) => tokens(t) <= 300)!;
    expect(tokens(fitted)).toBeLessThanOrEqual(300);
    expect(tokens(fitted)).toBeGreaterThan(280);
    expect(fitted[1]).toBe(short);
    expect(fitted[0]).toMatch(/^x+\n\[troupe: truncated \d+ bytes\]$/);
  });

  test('undefined when even the markers alone do not fit', () => {
    expect(fitTexts(['x'.repeat(1000), 'y'.repeat(1000)], (t) => tokens(t) <= 5)).toBeUndefined();
  });
});

describe('recapText', () => {
  test('a text that fits is unchanged, even with a marker', () => {
    expect(recapText('abc\n[troupe: truncated 10 bytes]', 100)).toBe('abc\n[troupe: truncated 10 bytes]');
  });

  test('an earlier marker is replaced by one counting the bytes both cuts removed', () => {
    const original = '潮'.repeat(10_000); // 30,000 bytes
    const first = capText(original, 9_000);
    const firstDropped = Number(/truncated (\d+) bytes/.exec(first)![1]);
    const second = recapText(first, 3_000);
    expect(utf8ByteLength(second)).toBeLessThanOrEqual(3_000);
    expect(second.match(/\[troupe: truncated/g)).toHaveLength(1);
    const m = /\n\[troupe: truncated (\d+) bytes\]$/.exec(second)!;
    const kept = second.slice(0, m.index);
    expect(original.startsWith(kept)).toBe(true);
    expect(Number(m[1])).toBe(30_000 - utf8ByteLength(kept));
    expect(Number(m[1])).toBeGreaterThan(firstDropped);
  });

  test('a text without a marker is cut as capText cuts it', () => {
    expect(recapText('a'.repeat(100), 50)).toBe(capText('a'.repeat(100), 50));
  });
});

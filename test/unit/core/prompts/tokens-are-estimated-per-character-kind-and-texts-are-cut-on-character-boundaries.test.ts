import fc from 'fast-check';
import { estimateMessagesTokens, estimateTokens, INPUT_CAP_BYTES } from '../../../../src/core/prompts/bounds';
import { TEXT_CAP_BYTES } from '../../../../src/core/state/state';
import { capText, fitsUtf8, shortenUtf8, utf8ByteLength } from '../../../../src/core/text/utf8';

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

describe('estimateTokens', () => {
  test('ASCII counts about 4 characters per token, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('x'.repeat(4000))).toBe(1000);
  });

  test('CJK and other non-ASCII characters count 1 token each', () => {
    expect(estimateTokens('你好世界')).toBe(4);
    expect(estimateTokens('潮汐'.repeat(500))).toBe(1000);
    expect(estimateTokens('😀')).toBe(1);
    expect(estimateTokens('hi 你好')).toBe(1 + 2);
  });

  test('the same number of characters costs about 4x more tokens in CJK than in ASCII', () => {
    expect(estimateTokens('潮'.repeat(1000)) / estimateTokens('a'.repeat(1000))).toBe(4);
  });

  test('messages add 4 tokens each plus 3 for the reply', () => {
    expect(estimateMessagesTokens([])).toBe(3);
    expect(
      estimateMessagesTokens([
        { role: 'system', content: 'abcd' },
        { role: 'user', content: '你好' },
      ]),
    ).toBe(3 + (1 + 4) + (2 + 4));
  });
});

describe('utf8ByteLength and capText', () => {
  test('the caps are 1 MiB per input and 64 KiB per carried text', () => {
    expect(INPUT_CAP_BYTES).toBe(1048576);
    expect(TEXT_CAP_BYTES).toBe(65536);
  });

  test('utf8ByteLength agrees with Buffer.byteLength on mixed text, including a lone surrogate', () => {
    for (const s of ['', 'abc', 'é', '你好', '😀x', 'a\uD800b', 'ñ潮😀\n']) expect(utf8ByteLength(s)).toBe(utf8(s));
  });

  test('a text that fits is returned unchanged', () => {
    expect(capText('潮汐', 6)).toBe('潮汐');
  });

  test('an ASCII text is cut so that text plus marker fit the limit, the marker giving the bytes removed', () => {
    const cut = capText('a'.repeat(100), 50);
    expect(cut).toBe(`${'a'.repeat(20)}\n[troupe: truncated 80 bytes]`);
    expect(utf8(cut)).toBeLessThanOrEqual(50);
  });

  test('a CJK text is cut on a character boundary', () => {
    const cut = capText('你'.repeat(100), 64);
    expect(cut).toBe(`${'你'.repeat(11)}\n[troupe: truncated 267 bytes]`);
    expect(utf8(cut)).toBeLessThanOrEqual(64);
    expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
  });

  test('emoji (surrogate pairs) are never split', () => {
    const cut = capText('😀'.repeat(20), 40);
    expect(cut).toBe('😀😀\n[troupe: truncated 72 bytes]');
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  test('a large mixed text cut to 64 KiB stays within it and counts the removed bytes exactly', () => {
    const text = 'tide 潮汐 🌊 '.repeat(20000);
    const cut = capText(text, TEXT_CAP_BYTES);
    expect(utf8(cut)).toBeLessThanOrEqual(TEXT_CAP_BYTES);
    const [kept, marker] = [cut.slice(0, cut.lastIndexOf('\n')), cut.slice(cut.lastIndexOf('\n') + 1)];
    expect(text.startsWith(kept)).toBe(true);
    expect(marker).toBe(`[troupe: truncated ${utf8(text) - utf8(kept)} bytes]`);
  });

  test('when even the marker does not fit, the marker alone is returned', () => {
    expect(capText('x'.repeat(100), 10)).toBe('[troupe: truncated 100 bytes]');
  });
});

/** Texts with ASCII, 2- and 3-byte characters, surrogate pairs and lone surrogates of both kinds. */
const anyText = fc.array(
  fc.oneof(fc.string(), fc.constantFrom('é', 'ß', '你', '😀', '\uD83D', '\uDE00', '\uDBFF\uDFFF', '\uDC00\uD800', '\u07FF', '\u0800')),
  { maxLength: 40 },
).map((parts) => parts.join(''));

describe('counting UTF-8 bytes and code points without encoding (a step measures every prompt)', () => {
  test('utf8ByteLength is the length TextEncoder encodes, lone surrogates as U+FFFD', () => {
    const encoder = new TextEncoder();
    fc.assert(fc.property(anyText, (text) => utf8ByteLength(text) === encoder.encode(text).length), { numRuns: 2000 });
  });

  test('fitsUtf8 says whether TextEncoder would encode the text within the bound, around every bound', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(anyText, fc.integer({ min: -2, max: 2 }), (text, off) => {
        const max = Math.max(0, encoder.encode(text).length + off);
        return fitsUtf8(text, max) === encoder.encode(text).length <= max;
      }),
      { numRuns: 2000 },
    );
  });

  test('estimateTokens reads code points as for…of does', () => {
    const reference = (text: string): number => {
      let ascii = 0;
      let other = 0;
      for (const ch of text) {
        if ((ch.codePointAt(0) ?? 0) < 0x80) ascii += 1;
        else other += 1;
      }
      return Math.ceil(ascii / 4) + other;
    };
    fc.assert(fc.property(anyText, (text) => estimateTokens(text) === reference(text)), { numRuns: 2000 });
  });

  test('capText leaves a text that fits as it is and cuts one that does not to the byte bound', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 40, max: 200 }), (text, max) => {
        const capped = capText(text, max);
        return utf8ByteLength(text) <= max ? capped === text : utf8ByteLength(capped) <= max && capped !== text;
      }),
      { numRuns: 2000 },
    );
  });
});

describe('shortening a text to a byte bound', () => {
  test('shortenUtf8 keeps a text that fits and cuts one that does not at a character boundary, with an ellipsis', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 3, max: 120 }), (text, max) => {
        const short = shortenUtf8(text, max);
        if (utf8ByteLength(text) <= max) return short === text;
        // a cut text is decoded from its bytes, so a lone surrogate in it reads as U+FFFD
        const wellFormed = Buffer.from(text, 'utf8').toString('utf8');
        return short.endsWith('…') && utf8ByteLength(short) <= max && wellFormed.startsWith(short.slice(0, -1));
      }),
      { numRuns: 2000 },
    );
  });
});

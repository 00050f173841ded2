/**
 * Model text is untrusted: before a terminal shows it, escape sequences (colours, cursor moves, a
 * cleared screen, a window title, hyperlinks), control characters and bidirectional overrides go,
 * and what remains reads as it was written.
 */
import { lastLine, printable, printableJson, tailOf } from '../../../../src/core/text/printable';

describe('printable', () => {
  it.each([
    ['a colour', 'red \u001b[31mALERT\u001b[0m done', 'red ALERT done'],
    ['a cleared screen and a cursor move', '\u001b[2J\u001b[Hhome\u001b[10;5Hthere', 'homethere'],
    ['a C1 CSI', 'a\u009b2Jb', 'ab'],
    ['a window title (OSC ended by BEL)', '\u001b]0;pwned\u0007text', 'text'],
    ['a clipboard write (OSC 52)', 'copy\u001b]52;c;cHduZWQ=\u0007 me', 'copy me'],
    ['a clipboard write inside a tmux passthrough', 'a\u001bPtmux;\u001b\u001b]52;c;cHduZWQ=\u0007\u001b\\b', 'ab'],
    ['a hyperlink (OSC ended by ST)', '\u001b]8;;https://x.test\u001b\\link\u001b]8;;\u001b\\', 'link'],
    ['a device control string', '\u001bPq#0;2;0;0;0\u001b\\after', 'after'],
    ['a two-character escape', 'a\u001bcb', 'ab'],
    ['a bell, a backspace and a NUL', 'a\u0007b\u0008c\u0000d', 'abcd'],
    ['DEL and C1 controls', 'a\u007fb\u0085c', 'abc'],
    ['bidirectional overrides', 'abc\u202edcba\u202c\u2066x\u2069', 'abcdcbax'],
    ['the Arabic letter mark', 'a\u061cb', 'ab'],
    ['a lone surrogate from a cut text', '\udc00tail', 'tail'],
  ])('removes %s', (_what, text, expected) => {
    expect(printable(text)).toBe(expected);
  });

  it('keeps newlines, turns carriage returns into line ends and tabs into spaces, and keeps every printable character', () => {
    expect(printable('one\r\ntwo\rthree\tfour')).toBe('one\ntwo\nthree four');
    const text = 'Ünïcödé 日本語 😀 — “quotes” ok';
    expect(printable(text)).toBe(text);
  });

  it('leaves no escape character behind, whatever is cut off', () => {
    expect(printable('cut \u001b[3')).not.toContain('\u001b');
    expect(printable('cut \u001b]0;title')).not.toContain('\u001b');
  });
});

describe('lastLine and tailOf', () => {
  it('takes the last line that is not blank, its spaces folded', () => {
    expect(lastLine('first\nsecond   line\n\n  \n')).toBe('second line');
    expect(lastLine('\u001b[31m\n')).toBe('');
    expect(lastLine('')).toBe('');
  });

  it('keeps the end of a long line in view, counting code points', () => {
    expect(tailOf('short', 10)).toBe('short');
    expect(tailOf('0123456789abcdef', 8)).toBe('…9abcdef');
    expect(tailOf('😀😀😀😀', 3)).toBe('…😀😀');
  });
});

describe('printableJson', () => {
  const hostile = {
    text: 'a\u001b]52;c;cHduZWQ=\u0007b\u009b31mc\u202ed\u2028e\u061cf\u007f',
    list: ['\u0085', 'plain', 'Ünïcödé 😀'],
    n: 1,
  };

  it('is exact JSON: it parses to the very same value', () => {
    expect(JSON.parse(printableJson(hostile))).toEqual(hostile);
    expect(JSON.parse(printableJson('\udc00lone'))).toBe('\udc00lone');
    expect(printableJson(undefined)).toBe('null');
  });

  it('holds nothing a terminal acts on: those characters are written as escapes', () => {
    const json = printableJson(hostile);
    // eslint-disable-next-line no-control-regex
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u2028\u202a-\u202e\u2066-\u2069]/);
    expect(json).toContain('\\u009b31m');
    expect(json).toContain('\\u202e');
    expect(json).toContain('Ünïcödé 😀');
  });
});

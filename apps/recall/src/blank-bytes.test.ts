import { UNKNOWN, unicodeBlankLength } from './blank-bytes';

describe('blank characters told from their UTF-8 bytes', () => {
  it('are exactly the characters outside ASCII that trim() removes, for every code point', () => {
    const wrong: string[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      const bytes = Buffer.from(`${ch}x`, 'utf8');
      const length = unicodeBlankLength(bytes, 0);
      const expected = ch.trim() === '' ? bytes.length - 1 : 0;
      if (length !== expected) wrong.push(`U+${cp.toString(16)}: ${length}, expected ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it('says UNKNOWN for a blank cut by the end of the bytes, 0 for other bytes', () => {
    expect(unicodeBlankLength(Buffer.from([0xc2]), 0)).toBe(UNKNOWN);
    expect(unicodeBlankLength(Buffer.from([0xef, 0xbb]), 0)).toBe(UNKNOWN);
    expect(unicodeBlankLength(Buffer.from([0x41, 0xe3, 0x80]), 1)).toBe(UNKNOWN);
    expect(unicodeBlankLength(Buffer.from([0xc3, 0xa0]), 0)).toBe(0);
    expect(unicodeBlankLength(Buffer.from([0xff, 0xff, 0xff]), 0)).toBe(0);
  });
});

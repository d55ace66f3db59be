import {
  sanitizeAttributes,
  sanitizeOptional,
  sanitizeText,
  TRUNCATION_MARK,
  toWellFormed,
} from './sanitize';

describe('sanitizeText', () => {
  it('removes zero-width, bidi, BOM and C0 controls but keeps newline and tab', () => {
    const hidden = [
      '\u200B',
      '\u200C',
      '\u200D',
      '\u200E',
      '\u200F',
      '\u202A',
      '\u202B',
      '\u202C',
      '\u202D',
      '\u202E',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\uFEFF',
      '\u0000',
      '\u0007',
      '\u001B',
      '\r',
      '\u007F',
    ];
    const input = `ign${hidden.join('')}ore\tprevious\ninstructions`;
    expect(sanitizeText(input, 1000)).toBe('ignore\tprevious\ninstructions');
  });

  it('replaces lone surrogates with U+FFFD and keeps pairs', () => {
    expect(sanitizeText('x\ud800', 100)).toBe('x\ufffd');
    expect(sanitizeText('\udc00x\ud83d', 100)).toBe('\ufffdx\ufffd');
    expect(sanitizeText('a\ud83d\udc4bb', 100)).toBe('a👋b');
    // Also in keys and values of attributes, and when the text is cut.
    expect(sanitizeAttributes({ 'k\udfff': 'v\ud800' })).toEqual({ 'k\ufffd': 'v\ufffd' });
    const cut = sanitizeText(`\ud800${'a'.repeat(50)}`, 20);
    expect(cut.startsWith('\ufffd')).toBe(true);
    expect(cut.endsWith(TRUNCATION_MARK)).toBe(true);
  });

  it('toWellFormed replaces exactly the lone surrogates', () => {
    const lone = ['\ud800', '\udbff', '\udc00', '\udfff'];
    for (const s of lone) expect(toWellFormed(`<${s}>`)).toBe('<\ufffd>');
    expect(toWellFormed('\ud800\ud800\udc00')).toBe('\ufffd\ud800\udc00');
    expect(toWellFormed('plain')).toBe('plain');
  });

  it('leaves ordinary Unicode alone', () => {
    expect(sanitizeText('Grüße 👋 日本語 – ok', 100)).toBe('Grüße 👋 日本語 – ok');
  });

  it('caps the length, marks the cut and never splits a surrogate pair', () => {
    const long = 'a'.repeat(20_000);
    const capped = sanitizeText(long, 8192);
    expect(capped.length).toBe(8192);
    expect(capped.endsWith(TRUNCATION_MARK)).toBe(true);
    const emoji = 'x'.repeat(8192 - TRUNCATION_MARK.length - 1) + '👋'.repeat(10);
    const cut = sanitizeText(emoji, 8192);
    expect(cut.endsWith(`x${TRUNCATION_MARK}`)).toBe(true);
    expect(cut.length).toBe(8191);
  });
});

describe('sanitizeOptional and sanitizeAttributes', () => {
  it('maps the stored empty string to null', () => {
    expect(sanitizeOptional('')).toBeNull();
    expect(sanitizeOptional(undefined)).toBeNull();
    expect(sanitizeOptional('u\u202E1')).toBe('u1');
  });

  it('cleans keys and values and bounds the count', () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, `v${i}`]));
    expect(Object.keys(sanitizeAttributes(many))).toHaveLength(64);
    expect(sanitizeAttributes({ 'a\u200Bb': 'c\u2066d' })).toEqual({ ab: 'cd' });
  });
});

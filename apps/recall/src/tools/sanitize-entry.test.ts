import { FIELD_LIMITS, TRUNCATION_MARK, toWellFormed } from '@svc/tool-kit';
import { parseEntry } from '../file-codec';
import { ENTRY_TEXT_MAX, sanitizeEntry } from './sanitize-entry';

const entryOf = (value: Record<string, unknown> | string) => {
  const entry = parseEntry(typeof value === 'string' ? value : JSON.stringify(value), 7);
  if (!entry) throw new Error('not an entry');
  return sanitizeEntry(entry);
};

describe('an entry as log.file_entries returns it', () => {
  it('keeps ts, level and tag as the device wrote them up to 256 characters, then cuts and marks them', () => {
    // A Java ZonedDateTime with a long zone id: 69 characters.
    const zoned = '2026-11-20T09:00:06.123456789-03:00[America/Argentina/ComodRivadavia]';
    const level = 'WARNING-WITH-A-VERY-LONG-CUSTOM-LEVEL-NAME';
    const e = entryOf({ ts: zoned, level, tag: 't'.repeat(300), message: 'm' });
    expect(e.ts).toBe(zoned);
    expect(e.level).toBe(level);
    expect(e.tag).toHaveLength(ENTRY_TEXT_MAX);
    expect(e.tag!.endsWith(TRUNCATION_MARK)).toBe(true);
    const long = entryOf({ ts: '1'.repeat(300), level: 'l'.repeat(300), message: 'm' });
    expect(long.ts).toBe('1'.repeat(ENTRY_TEXT_MAX - TRUNCATION_MARK.length) + TRUNCATION_MARK);
    expect(long.level).toHaveLength(ENTRY_TEXT_MAX);
    expect(entryOf({ ts: 't', level: 'l', message: 'x'.repeat(20_000) }).message).toHaveLength(
      FIELD_LIMITS.message,
    );
  });

  it('keeps the first 64 other fields in file order, numbers, booleans and null as they are', () => {
    const extra = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`f${i}`, i]));
    const e = entryOf({ ts: 't', level: 'l', message: 'm', ...extra, ok: true });
    expect(Object.keys(e.fields)).toEqual(Object.keys(extra).slice(0, FIELD_LIMITS.attributes));
    expect(entryOf({ ts: 't', level: 'l', message: 'm', a: null, b: false, c: -0.5 }).fields).toEqual({
      a: null,
      b: false,
      c: -0.5,
    });
  });

  it('gives a number past the range of a double as "Infinity", never a null that hides it', () => {
    const e = entryOf('{"ts":"t","level":"l","message":"m","big":1e400,"small":-1e400,"n":[1e400]}');
    expect(e.fields).toEqual({ big: 'Infinity', small: '-Infinity', n: '[null]' });
  });

  it('gives a field nested half a million levels deep as the start of its JSON text, cut', () => {
    const depth = 500_000;
    const line = `{"ts":"t","level":"l","message":"m","deep":${'['.repeat(depth)}${']'.repeat(depth)},"obj":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`;
    const e = entryOf(line);
    const deep = e.fields.deep as string;
    expect(deep).toHaveLength(FIELD_LIMITS.attributeValue);
    expect(deep).toBe('['.repeat(FIELD_LIMITS.attributeValue - TRUNCATION_MARK.length) + TRUNCATION_MARK);
    expect((e.fields.obj as string).startsWith('{"a":{"a":')).toBe(true);
    expect(
      entryOf({ ts: 't', level: 'l', message: 'm', o: { b: [1, 'x', null, true, { c: 2 }] } }).fields,
    ).toEqual({ o: '{"b":[1,"x",null,true,{"c":2}]}' });
  });

  it('replaces lone surrogates with U+FFFD everywhere, nested JSON text included', () => {
    const e = entryOf(
      '{"ts":"t\\ud800","level":"\\udc00l","tag":"x\\ud83d","message":"a\\ud800b \\ud83d\\ude00","k\\ud800":"v\\udfff","n":{"s":"\\ud800"}}',
    );
    expect(e).toMatchObject({
      ts: 't\ufffd',
      level: '\ufffdl',
      tag: 'x\ufffd',
      message: 'a\ufffdb \u{1f600}',
    });
    expect(e.fields).toEqual({ 'k\ufffd': 'v\ufffd', n: '{"s":"\ufffd"}' });
    const text = JSON.stringify(e);
    expect(toWellFormed(text)).toBe(text);
  });
});

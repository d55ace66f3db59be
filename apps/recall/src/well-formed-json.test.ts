import { toWellFormed } from '@svc/tool-kit';
import { wellFormedJsonText } from './well-formed-json';

const wellFormedDeep = (v: unknown): unknown =>
  typeof v === 'string'
    ? toWellFormed(v)
    : Object.fromEntries(Object.entries(v as object).map(([k, x]) => [toWellFormed(k), wellFormedDeep(x)]));

describe('JSON text without escapes of lone surrogates', () => {
  it('replaces an escaped lone surrogate with \\ufffd and keeps pairs, other escapes and text', () => {
    const cases: [string, string][] = [
      ['{"a":"x\\ud800y"}', '{"a":"x\\ufffdy"}'],
      ['{"a":"\\uDC00"}', '{"a":"\\ufffd"}'],
      ['{"a":"\\ud83d\\ude00"}', '{"a":"\\ud83d\\ude00"}'],
      ['{"a":"\\ud83d\\u0041"}', '{"a":"\\ufffd\\u0041"}'],
      ['{"a":"\\\\ud800"}', '{"a":"\\\\ud800"}'],
      ['{"a":"\\\\\\ud800"}', '{"a":"\\\\\\ufffd"}'],
      ['{"\\ud800":"\\n\\"\\ud800"}', '{"\\ufffd":"\\n\\"\\ufffd"}'],
      ['{"a":"plain é 😀"}', '{"a":"plain é 😀"}'],
    ];
    for (const [json, expected] of cases) {
      const fixed = wellFormedJsonText(json);
      expect(fixed).toBe(expected);
      // A client parses what the original parses to, each lone surrogate as U+FFFD.
      expect(JSON.parse(fixed)).toEqual(wellFormedDeep(JSON.parse(json)));
    }
  });
});

import { z } from 'zod';
import { keyedRecord } from './keyed-record';

// Maps whose keys a client chose (attributes, event properties, a device log line's fields): every
// key is data. zod's own z.record refuses an object with an own key `constructor` ("expected
// record, received object"), which made one stored attribute fail a project's reads.

const KEYS_OF_OBJECT_PROTOTYPE = [
  'constructor',
  'toString',
  'hasOwnProperty',
  'prototype',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
];

describe('keyedRecord', () => {
  const strings = keyedRecord(z.string().max(200), z.string());

  it.each(KEYS_OF_OBJECT_PROTOTYPE)('takes a key named %s as data and gives it back', (key) => {
    const input = JSON.parse(JSON.stringify({ [key]: 'v', other: 'w' })) as Record<string, string>;
    const parsed = strings.safeParse(input);
    expect(parsed.success).toBe(true);
    expect(Object.getOwnPropertyNames(parsed.data).sort()).toEqual([key, 'other'].sort());
    expect(parsed.data?.[key]).toBe('v');
  });

  it('takes a `constructor` key whose value is an object, with any JSON value', () => {
    const anything = keyedRecord(z.string(), z.unknown());
    const input = JSON.parse('{"constructor":{"prototype":{"x":1}},"toString":[1]}');
    expect(anything.parse(input)).toEqual(input);
  });

  it('drops a `__proto__` key: never a prototype, never an error', () => {
    const anything = keyedRecord(z.string(), z.unknown());
    const parsed = anything.parse(JSON.parse('{"__proto__":{"polluted":1},"a":1}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['a']);
    expect(parsed.polluted).toBeUndefined();
    // Dropped before the value is checked: a `__proto__` of the wrong type is no error either.
    expect(strings.parse(JSON.parse('{"__proto__":5,"a":"1"}'))).toEqual({ a: '1' });
  });

  it('checks every key with its schema and names the key', () => {
    const long = 'k'.repeat(201);
    const parsed = strings.safeParse({ ok: 'v', [long]: 'v' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toEqual([
      expect.objectContaining({ path: [long], message: expect.stringMatching(/^Invalid key: .*200/) }),
    ]);
  });

  it('checks every value and names its key', () => {
    const parsed = strings.safeParse({ constructor: 5 });
    expect(parsed.error?.issues).toEqual([
      expect.objectContaining({ path: ['constructor'], message: expect.stringContaining('expected string') }),
    ]);
  });

  it.each([[null], [[1]], ['text'], [5]])('refuses %j: not an object', (value) => {
    expect(strings.safeParse(value).success).toBe(false);
  });

  it('is written in JSON Schema as an object of any keys with the value schema', () => {
    const json = z.toJSONSchema(keyedRecord(z.string(), z.string()), { io: 'output' }) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
  });
});

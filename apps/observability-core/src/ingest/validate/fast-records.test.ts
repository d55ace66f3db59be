import fc from 'fast-check';
import { logRecord, spanRecord } from '../schemas';
import { fastParse } from './fast-records';

// The fast paths must never disagree with the schemas: whatever a fast path accepts, the schema
// accepts with the same output. Records are generated near the edges (lengths at and past the
// limits, hex in both cases and not hex, odd times, odd attribute values, unknown keys), so both
// acceptance and refusal are exercised.

const NOW = Date.parse('2026-06-01T12:00:00Z');

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });
// Mostly valid values, with an edge case one time in thirteen: a record is then often valid as a whole.
const mostly = <T, U>(valid: fc.Arbitrary<T>, edge: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: edge, weight: 1 });
const textNear = (max: number) =>
  mostly(
    fc.string({ minLength: 1, maxLength: 8 }),
    fc.oneof(fc.string({ minLength: max - 1, maxLength: max + 1 }), fc.constantFrom('', 'ünïcödé', '\u0000')),
  );
const hexNear = (length: number) =>
  mostly(
    fc.oneof(
      fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`)),
      fc.stringMatching(new RegExp(`^[0-9A-F]{${length}}$`)),
    ),
    fc.oneof(
      fc.stringMatching(new RegExp(`^[0-9a-g]{${length - 1},${length + 1}}$`)),
      fc.constant('0'.repeat(length)),
    ),
  );
const timeNear = mostly(
  fc.oneof(
    fc.integer({ min: NOW - 1e10, max: NOW + 1e10 }),
    fc.integer({ min: NOW - 1e10, max: NOW + 1e10 }).map((ms) => new Date(ms).toISOString()),
  ),
  fc.constantFrom(
    946684800000,
    946684799999,
    4102444800000,
    4102444799999,
    1.5,
    -1,
    Number.NaN,
    '2026-02-30T00:00:00.000Z',
    '2026-06-01T12:00:00Z',
    '2026-06-01T12:00:00.000+02:00',
    '2026-13-01T00:00:00.000Z',
    'yesterday',
  ),
);
const attributeValue = mostly(
  fc.oneof(
    fc.string({ maxLength: 5 }),
    fc.integer(),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  ),
  fc.oneof(fc.string({ minLength: 4095, maxLength: 4097 }), fc.double(), fc.constant(null), fc.constant([1])),
);
const attributesNear = mostly(
  fc.dictionary(textNear(200), attributeValue, { maxKeys: 4 }),
  fc.oneof(
    fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.string({ maxLength: 3 }), {
      minKeys: 63,
      maxKeys: 66,
    }),
    fc.constantFrom([], null, 'a=b', JSON.parse('{"__proto__":"x"}')),
  ),
);
const extraKey = mostly(fc.constant(undefined), fc.constantFrom('project_id', 'extra', 'trace_id'));

function withExtra(record: Record<string, unknown>, extra: string | undefined) {
  return extra && !(extra in record) ? { ...record, [extra]: 'x' } : record;
}

const spanNear = fc
  .record(
    {
      trace_id: hexNear(32),
      span_id: hexNear(16),
      parent_span_id: maybe(hexNear(16)),
      kind: textNear(32),
      status: mostly(fc.constantFrom('ok', 'error', 'unset'), fc.constantFrom('OK', '')),
      operation: textNear(500),
      service: maybe(textNear(200)),
      start_time: timeNear,
      duration_ms: mostly(
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.constantFrom(-0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e308, 3650 * 86_400_000 + 1),
      ),
      attributes: maybe(attributesNear),
      user_id: maybe(textNear(200)),
      session_id: maybe(textNear(200)),
      sample_rate: maybe(
        mostly(
          fc.constantFrom(0, 1, 0.25),
          fc.oneof(fc.double({ min: -0.5, max: 1.5 }), fc.constantFrom(5e-324, 1e-7, 1e-6, -0)),
        ),
      ),
    },
    { requiredKeys: ['trace_id', 'span_id', 'kind', 'status', 'operation', 'start_time', 'duration_ms'] },
  )
  .chain((r) => extraKey.map((extra) => withExtra(r, extra)));

const logNear = fc
  .record(
    {
      timestamp: timeNear,
      level: mostly(
        fc.constantFrom('DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'),
        fc.constantFrom('info', 'TRACE'),
      ),
      message: mostly(
        fc.string({ maxLength: 5 }),
        fc.constantFrom('x'.repeat(65536), 'x'.repeat(65537), 'ü'.repeat(65536)),
      ),
      source: mostly(fc.constantFrom('backend', 'device'), fc.constant('web')),
      platform: maybe(textNear(50)),
      app_version: maybe(textNear(100)),
      user_id: maybe(textNear(200)),
      session_id: maybe(textNear(200)),
      device_id: maybe(textNear(200)),
      trace_id: maybe(hexNear(32)),
      span_id: maybe(hexNear(16)),
      event_id: maybe(textNear(200)),
      attributes: maybe(attributesNear),
    },
    { requiredKeys: ['timestamp', 'level', 'message', 'source'] },
  )
  .chain((r) => extraKey.map((extra) => withExtra(r, extra)));

const cases = [
  ['spans', spanRecord, spanNear],
  ['logs', logRecord, logNear],
] as const;

describe.each(cases)('the %s fast path', (type, schema, arbitrary) => {
  it('accepts only what the schema accepts, and answers exactly what it answers', () => {
    let fast = 0;
    let refused = 0;
    fc.assert(
      fc.property(arbitrary, (record) => {
        const quick = fastParse(type, record);
        const parsed = schema.safeParse(record);
        if (!parsed.success) refused++;
        if (quick === undefined) return;
        fast++;
        expect(parsed.success).toBe(true);
        expect(quick).toEqual(parsed.data);
      }),
      { numRuns: 1500 },
    );
    // Both sides were exercised: many records took the fast path, many were invalid.
    expect(fast).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
  });
});

it('takes the fast path for records as the SDKs and the OTLP mapping write them', () => {
  const span = {
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    span_id: '00f067aa0ba902b7',
    kind: 'server',
    status: 'ok',
    operation: 'GET /v1/orders/:id',
    service: 'orders',
    start_time: new Date(NOW).toISOString(),
    duration_ms: 12.5,
    attributes: { 'http.status_code': 200, cached: false },
    sample_rate: 0.25,
  };
  expect(fastParse('spans', span)).toEqual(spanRecord.parse(span));
  expect(fastParse('spans', { ...span, start_time: NOW, parent_span_id: undefined })).toBeDefined();
  const log = { timestamp: NOW, level: 'INFO', message: '', source: 'backend', trace_id: span.trace_id };
  expect(fastParse('logs', log)).toEqual(logRecord.parse(log));
  expect(fastParse('crashes', {})).toBeUndefined();
});

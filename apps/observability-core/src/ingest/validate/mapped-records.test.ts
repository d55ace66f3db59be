import fc from 'fast-check';
import { logsFromOtlp } from '../otlp/otlp-logs';
import { OtlpOutput } from '../otlp/otlp-shape';
import { spansFromOtlp } from '../otlp/otlp-traces';
import { RECORD_SCHEMAS, spanRecord } from '../schemas';
import { finishMapped } from './mapped-records';

// A record an OTLP mapping made is checked once, where the mapping reads it, and never by the
// schema: so whatever a mapping lets through, finished, must be exactly what the schema would
// make of it, and what the finisher hands to the schema must be what the schema refuses. OTLP
// spans and logs are generated near every edge the mappings check (ids, names, times, durations,
// sample rates, attributes, ids from attributes with blanks around them).

const NOW_NS = BigInt(Date.parse('2026-06-01T12:00:00Z')) * 1_000_000n;
const MIN_NS = BigInt(Date.parse('2000-01-01T00:00:00Z')) * 1_000_000n;
const MAX_NS = BigInt(Date.parse('2100-01-01T00:00:00Z')) * 1_000_000n;
const MAX_DURATION_NS = 3650n * 86_400_000n * 1_000_000n;

const mostly = <T, U>(valid: fc.Arbitrary<T>, edge: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: valid, weight: 10 }, { arbitrary: edge, weight: 1 });
const hexNear = (length: number) =>
  mostly(
    fc.stringMatching(new RegExp(`^[0-9a-fA-F]{${length}}$`)),
    fc.oneof(fc.constant('0'.repeat(length)), fc.constant(''), fc.stringMatching(/^[0-9a-g]{1,40}$/)),
  );
const textNear = (max: number) =>
  mostly(
    fc.string({ minLength: 1, maxLength: 8 }),
    fc.oneof(fc.string({ minLength: max - 1, maxLength: max + 1 }), fc.constant('')),
  );
const idText = mostly(
  fc.string({ minLength: 1, maxLength: 8 }),
  fc.constantFrom(
    ' u1 ',
    '\t',
    '   ',
    '\u00a0u\u00a0',
    'x'.repeat(200),
    ` ${'x'.repeat(199)}`,
    'x'.repeat(201),
  ),
);
const startNs = mostly(
  fc.bigInt({ min: NOW_NS - 10n ** 16n, max: NOW_NS + 10n ** 16n }),
  fc.constantFrom(MIN_NS, MIN_NS - 1n, MAX_NS - 1n, MAX_NS, 0n),
);
const durationNs = mostly(
  fc.bigInt({ min: 0n, max: 10n ** 12n }),
  fc.constantFrom(-1n, MAX_DURATION_NS, MAX_DURATION_NS + 1n, MAX_DURATION_NS - 1n),
);
const stringValue = (value: string) => ({ stringValue: value });
const attribute = fc.record({
  key: mostly(
    fc.constantFrom('http.method', 'region', 'constructor'),
    fc.constantFrom('', '__proto__', 'k'.repeat(201)),
  ),
  value: mostly(
    fc.oneof(
      fc.string({ maxLength: 5 }).map(stringValue),
      fc.integer().map((n) => ({ intValue: String(n) })),
      fc.boolean().map((b) => ({ boolValue: b })),
    ),
    fc.string({ minLength: 4095, maxLength: 4097 }).map(stringValue),
  ),
});
const idAttributes = fc.record(
  { 'enduser.id': idText, 'user.id': idText, 'session.id': idText },
  { requiredKeys: [] },
);
const attributesOf = (plain: fc.Arbitrary<{ key: string; value: object }[]>) =>
  fc
    .tuple(plain, idAttributes)
    .map(([list, ids]) => [
      ...list,
      ...Object.entries(ids).map(([key, value]) => ({ key, value: stringValue(value) })),
    ]);
const rate = mostly(
  fc.constantFrom('1', '0.5', '0', '0.000001'),
  fc.constantFrom('0.0000009', '1.5', '-0', 'x', '1e-7'),
);

const otlpSpan = fc
  .record({
    traceId: hexNear(32),
    spanId: hexNear(16),
    parentSpanId: fc.option(hexNear(16), { nil: undefined }),
    name: textNear(500),
    kind: fc.constantFrom(0, 1, 2, 3, 'SPAN_KIND_SERVER'),
    start: startNs,
    duration: durationNs,
    attributes: attributesOf(fc.array(attribute, { maxLength: 4 })),
    rate: fc.option(rate, { nil: undefined }),
    status: fc.constantFrom(undefined, { code: 2 }, { code: 'STATUS_CODE_OK' }),
  })
  .map((s) => ({
    traceId: s.traceId,
    spanId: s.spanId,
    parentSpanId: s.parentSpanId,
    name: s.name,
    kind: s.kind,
    startTimeUnixNano: String(s.start),
    endTimeUnixNano: String(s.start + s.duration),
    attributes:
      s.rate === undefined
        ? s.attributes
        : [...s.attributes, { key: 'sampling.rate', value: stringValue(s.rate) }],
    status: s.status,
  }));

const otlpLog = fc.record({
  timeUnixNano: startNs.map(String),
  severityNumber: fc.constantFrom(undefined, 0, 9, 13, 24),
  body: fc.option(textNear(65536).map(stringValue), { nil: undefined }),
  traceId: fc.option(hexNear(32), { nil: undefined }),
  spanId: fc.option(hexNear(16), { nil: undefined }),
  attributes: attributesOf(fc.array(attribute, { maxLength: 4 })),
});

const service = fc.option(textNear(200), { nil: undefined });
const resource = (name: string | undefined) =>
  name === undefined ? {} : { resource: { attributes: [{ key: 'service.name', value: stringValue(name) }] } };

/** The records a mapping made of `body`, when it found no problem (else none: the request is refused). */
function mapped(recordsOf: (body: unknown, out: OtlpOutput) => Generator<void>, body: unknown): unknown[] {
  const out = new OtlpOutput();
  for (const _ of recordsOf(body, out));
  return out.problemCount === 0 ? out.records : [];
}

function finishedAsTheSchemaParses(type: 'spans' | 'logs', records: unknown[]): void {
  const schema = RECORD_SCHEMAS[type];
  for (const record of records) {
    const parsed = schema.safeParse(structuredClone(record));
    const finished = finishMapped(type, structuredClone(record));
    if (finished === undefined) expect(parsed.success).toBe(false);
    else {
      expect(parsed.success).toBe(true);
      expect(finished).toEqual(parsed.data);
    }
  }
}

describe('records an OTLP mapping made', () => {
  test('spans: finished exactly as the schema parses them, or left to the schema to refuse', () => {
    let accepted = 0;
    fc.assert(
      fc.property(service, fc.array(otlpSpan, { minLength: 1, maxLength: 3 }), (name, spans) => {
        const records = mapped(spansFromOtlp, {
          resourceSpans: [{ ...resource(name), scopeSpans: [{ spans }] }],
        });
        accepted += records.length;
        finishedAsTheSchemaParses('spans', records);
      }),
      { numRuns: 400, seed: 38 },
    );
    // The generator is no use if the mapping refuses everything it makes.
    expect(accepted).toBeGreaterThan(100);
  });

  test('logs: finished exactly as the schema parses them, or left to the schema to refuse', () => {
    let accepted = 0;
    fc.assert(
      fc.property(service, fc.array(otlpLog, { minLength: 1, maxLength: 3 }), (name, logRecords) => {
        const records = mapped(logsFromOtlp, {
          resourceLogs: [{ ...resource(name), scopeLogs: [{ logRecords }] }],
        });
        accepted += records.length;
        finishedAsTheSchemaParses('logs', records);
      }),
      { numRuns: 400, seed: 38 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  test('an id from an attribute is trimmed as the schema trims it; blank once trimmed goes to the schema', () => {
    const [span] = mapped(spansFromOtlp, {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: 'a'.repeat(32),
                  spanId: 'b'.repeat(16),
                  name: 'GET /',
                  startTimeUnixNano: String(NOW_NS),
                  endTimeUnixNano: String(NOW_NS + 1_000_000n),
                  attributes: [{ key: 'enduser.id', value: stringValue(' u1\t') }],
                },
              ],
            },
          ],
        },
      ],
    }) as Record<string, unknown>[];
    expect(finishMapped('spans', structuredClone(span))).toEqual(spanRecord.parse(span));
    expect(finishMapped('spans', { ...span, user_id: ' \t' })).toBeUndefined();
    expect(
      finishMapped('logs', {
        timestamp: 1.7e12,
        level: 'INFO',
        message: '',
        source: 'backend',
        user_id: ' ',
      }),
    ).toBeUndefined();
  });

  test('metrics have no finisher: their schema checks them', () => {
    expect(finishMapped('metrics', { name: 'm', value: 1, timestamp: 1.7e12 })).toBeUndefined();
  });
});

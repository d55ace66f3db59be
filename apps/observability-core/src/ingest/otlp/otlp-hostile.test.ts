import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import {
  keyValue,
  nestedKvlistAttribute,
  pb,
  protoSpan,
  traceRequestBody,
} from '../../testing/protobuf-writer';
import { MAX_RECORDS_PER_REQUEST } from '../request-limits';
import { WorkSlices } from '../work-slices';
import { traceRequest } from './otlp-proto-schemas';
import { decodeProtobuf, TooManyElementsError } from './protobuf-reader';

// OTLP bodies as a hostile holder of an ingest key sends them. Before: a kvlist nested 26 deep
// took 35 s and 2.2 GB (each level's JSON escaped again inside its parent's), 1,000 deep answered
// 500, a traceId sent as a number and resourceSpans sent as an object answered 500, kind 99 and
// all-zero ids were stored. Now each is a 400 naming the field, and nested values flatten in
// linear time.

const NOW = Date.now();
const key: TestKey = {
  keyId: 'otlp_hostile',
  projectId: 'otlp_hostile_p',
  secret: 'otlp-hostile-0123',
  active: true,
};
const ns = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
const SPANS = 'resourceSpans[0].scopeSpans[0].spans[0]';

function jsonSpan(extra: Record<string, unknown> = {}) {
  return {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    name: 'op',
    kind: 2,
    startTimeUnixNano: ns(NOW - 60_000),
    endTimeUnixNano: ns(NOW - 59_000),
    ...extra,
  };
}
const traces = (...spans: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });

/** An AnyValue: a kvlist nested `depth` deep around a string. */
function nestedValue(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { stringValue: 'leaf' };
  for (let i = 0; i < depth; i++) value = { kvlistValue: { values: [{ key: `k${i}`, value }] } };
  return value;
}

let h: CoreHarness;
beforeAll(async () => {
  h = await createCoreHarness('core_otlp_hostile', NOW, [key]);
});
afterAll(async () => {
  await h.close();
});

const post = (path: string, body: unknown, contentType = 'application/json') =>
  request(h.app)
    .post(path)
    .set({ 'content-type': contentType, 'x-svc-ingest-key': `${key.keyId}:${key.secret}` })
    .send(Buffer.isBuffer(body) ? body : typeof body === 'string' ? body : JSON.stringify(body));

async function storedAttribute(traceId: string, name: string): Promise<string | undefined> {
  const [row] = await h.ch.query<{ v: string }>(
    'SELECT attributes[{k:String}] AS v FROM spans WHERE project_id = {p:String} AND trace_id = {t:String}',
    { p: key.projectId, t: traceId, k: name },
  );
  return row?.v;
}

describe('OTLP attribute values nested deep', () => {
  it('flatten in linear time: each level adds the same number of characters, never doubles them', async () => {
    const lengths: number[] = [];
    for (let depth = 1; depth <= 8; depth++) {
      const span = jsonSpan({ attributes: [{ key: 'nested', value: nestedValue(depth) }] });
      expect((await post('/v1/traces', traces(span))).status).toBe(200);
      lengths.push((await storedAttribute(span.traceId, 'nested'))!.length);
    }
    // `{"k0":"leaf"}`, `{"k1":{"k0":"leaf"}}`...: JSON of nested maps, written once.
    const steps = lengths.slice(1).map((n, i) => n - lengths[i]!);
    expect(new Set(steps)).toEqual(new Set([steps[0]]));
    expect(steps[0]).toBe('{"k1":}'.length);
  });

  it('keep nested maps as nested JSON', async () => {
    const span = jsonSpan({ attributes: [{ key: 'nested', value: nestedValue(2) }] });
    expect((await post('/v1/traces', traces(span))).status).toBe(200);
    expect(JSON.parse((await storedAttribute(span.traceId, 'nested'))!)).toEqual({ k1: { k0: 'leaf' } });
  });

  it('refuses a value nested 12 deep with a 400 naming the value 8 levels down, where it stopped', async () => {
    const res = await post(
      '/v1/traces',
      traces(jsonSpan({ attributes: [{ key: 'nested', value: nestedValue(12) }] })),
    );
    expect(res.status).toBe(400);
    const [problem] = res.body.details;
    expect(problem.reason).toBe('nested more than 8 levels deep (arrays and maps in values)');
    expect(problem.path).toMatch(
      new RegExp(`^${SPANS.replace(/[[\].]/g, '\\$&')}\\.attributes\\[0\\]\\.value`),
    );
    // It went 8 maps down and no further.
    expect(problem.path.match(/kvlistValue/g)).toHaveLength(8);
  });

  it.each([26, 1000])(
    'refuses the %i-deep JSON body with a 400 where JSON nests past 64 levels',
    async (depth) => {
      const res = await post(
        '/v1/traces',
        traces(jsonSpan({ attributes: [{ key: 'nested', value: nestedValue(depth) }] })),
      );
      expect(res.status).toBe(400);
      expect(res.body.details[0].reason).toBe('nested more than 64 levels deep');
      expect(res.body.details[0].path).toMatch(
        /^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes/,
      );
    },
  );

  it.each([26, 1000])(
    'refuses a protobuf body with a kvlist nested %i deep, naming the field',
    async (depth) => {
      const body = traceRequestBody([
        protoSpan({
          traceId: randomBytes(16),
          spanId: randomBytes(8),
          name: 'deep',
          startNs: BigInt(NOW) * 1_000_000n,
          endNs: BigInt(NOW) * 1_000_000n + 1000n,
          extra: [nestedKvlistAttribute(depth)],
        }),
      ]);
      const res = await post('/v1/traces', body, 'application/x-protobuf');
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toMatch(
        /^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\[0\]\.value/,
      );
      expect(res.body.details[0].reason).toMatch(/nested more than (8|32) levels deep/);
    },
  );
});

describe('OTLP fields of the wrong type or out of range', () => {
  it.each([
    ['traceId as a number', traces(jsonSpan({ traceId: 12345 })), `${SPANS}.traceId`, 'expected a string'],
    ['resourceSpans as an object', { resourceSpans: { a: 1 } }, 'resourceSpans', 'expected an array'],
    [
      'spans as a string',
      { resourceSpans: [{ scopeSpans: [{ spans: 'x' }] }] },
      'resourceSpans[0].scopeSpans[0].spans',
      'expected an array',
    ],
    ['a span as a number', traces(7), SPANS, 'expected an object'],
    ['kind 99', traces(jsonSpan({ kind: 99 })), `${SPANS}.kind`, 'expected 0-5'],
    ['kind -1', traces(jsonSpan({ kind: -1 })), `${SPANS}.kind`, 'expected 0-5'],
    [
      'an unknown kind name',
      traces(jsonSpan({ kind: 'SPAN_KIND_SIDEWAYS' })),
      `${SPANS}.kind`,
      'expected 0-5',
    ],
    ['status code 7', traces(jsonSpan({ status: { code: 7 } })), `${SPANS}.status.code`, 'expected 0-2'],
    [
      'a start time that is not an integer',
      traces(jsonSpan({ startTimeUnixNano: '1e9' })),
      `${SPANS}.startTimeUnixNano`,
      'expected a 64-bit integer',
    ],
    [
      'an end before the start',
      traces(jsonSpan({ endTimeUnixNano: ns(NOW - 61_000) })),
      `${SPANS}.endTimeUnixNano`,
      'must not be before',
    ],
    [
      'an attribute value as a string',
      traces(jsonSpan({ attributes: [{ key: 'k', value: 'v' }] })),
      `${SPANS}.attributes[0].value`,
      'expected an object',
    ],
    [
      'an attribute key as a number',
      traces(jsonSpan({ attributes: [{ key: 5, value: { stringValue: 'v' } }] })),
      `${SPANS}.attributes[0].key`,
      'expected a string',
    ],
    [
      'a boolValue as a string',
      traces(jsonSpan({ attributes: [{ key: 'k', value: { boolValue: 'yes' } }] })),
      `${SPANS}.attributes[0].value.boolValue`,
      'expected a boolean',
    ],
  ])('refuses %s with a 400 naming it', async (_name, body, path, reason) => {
    const res = await post('/v1/traces', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_input');
    expect(res.body.details).toEqual([{ path, reason: expect.stringContaining(reason) }]);
  });

  it('refuses a body that is not an object', async () => {
    for (const body of ['[]', '5', 'null', '"x"']) {
      const res = await post('/v1/traces', body);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('ExportTraceServiceRequest');
    }
  });

  it('refuses an all-zero trace or span id, naming the field; an all-zero parent is a root', async () => {
    const zeroTrace = await post('/v1/traces', traces(jsonSpan({ traceId: '0'.repeat(32) })));
    expect(zeroTrace.status).toBe(400);
    expect(zeroTrace.body.details).toEqual([
      { path: `${SPANS}.traceId`, reason: expect.stringMatching(/^must not be all zeros/) },
    ]);
    const zeroSpan = await post('/v1/traces', traces(jsonSpan({ spanId: '0'.repeat(16) })));
    expect(zeroSpan.body.details).toEqual([
      { path: `${SPANS}.spanId`, reason: expect.stringMatching(/^must not be all zeros/) },
    ]);
    const root = jsonSpan({ parentSpanId: '0'.repeat(16) });
    expect((await post('/v1/traces', traces(root))).status).toBe(200);
    const [row] = await h.ch.query<{ parent: string }>(
      'SELECT parent_span_id AS parent FROM spans WHERE project_id = {p:String} AND trace_id = {t:String}',
      { p: key.projectId, t: root.traceId },
    );
    expect(row).toEqual({ parent: '' });
  });

  it('refuses kind 99 and an all-zero trace id in protobuf too', async () => {
    const span = (kind: number, traceId: Buffer) =>
      traceRequestBody([
        protoSpan({
          traceId,
          spanId: randomBytes(8),
          name: 'p',
          kind,
          startNs: BigInt(NOW) * 1_000_000n,
          endNs: BigInt(NOW) * 1_000_000n,
        }),
      ]);
    const kind = await post('/v1/traces', span(99, randomBytes(16)), 'application/x-protobuf');
    expect(kind.status).toBe(400);
    expect(kind.body.details).toEqual([
      { path: `${SPANS}.kind`, reason: expect.stringContaining('expected 0-5') },
    ]);
    const zero = await post('/v1/traces', span(2, Buffer.alloc(16)), 'application/x-protobuf');
    expect(zero.status).toBe(400);
    expect(zero.body.details[0]).toMatchObject({
      path: `${SPANS}.traceId`,
      reason: expect.stringMatching(/^must not be all zeros/),
    });
  });

  it('refuses a log severityNumber out of range and takes an all-zero trace id as none', async () => {
    const logs = (record: Record<string, unknown>) => ({
      resourceLogs: [
        {
          scopeLogs: [
            { logRecords: [{ timeUnixNano: ns(NOW - 1000), body: { stringValue: 'm' }, ...record }] },
          ],
        },
      ],
    });
    const bad = await post('/v1/logs', logs({ severityNumber: 99 }));
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      {
        path: 'resourceLogs[0].scopeLogs[0].logRecords[0].severityNumber',
        reason: expect.stringContaining('0-24'),
      },
    ]);
    const zero = await post(
      '/v1/logs',
      logs({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), body: { stringValue: 'zero-ids' } }),
    );
    expect(zero.status).toBe(200);
    const [row] = await h.ch.query<{ trace_id: string; span_id: string }>(
      "SELECT trace_id, span_id FROM logs WHERE project_id = {p:String} AND message = 'zero-ids'",
      { p: key.projectId },
    );
    expect(row).toEqual({ trace_id: '', span_id: '' });
  });
});

describe('OTLP strings that are not well-formed', () => {
  it('stores a lone surrogate (JSON) and invalid UTF-8 (protobuf) as U+FFFD', async () => {
    const json = jsonSpan({
      name: 'x\ud800',
      attributes: [{ key: 'k\udc00', value: { stringValue: 'v\ud800' } }],
    });
    expect((await post('/v1/traces', JSON.stringify(traces(json)))).status).toBe(200);
    const traceId = randomBytes(16);
    const proto = traceRequestBody([
      protoSpan({
        traceId,
        spanId: randomBytes(8),
        name: Buffer.from([0x78, 0xed, 0xa0, 0x80]),
        startNs: BigInt(NOW) * 1_000_000n,
        endNs: BigInt(NOW) * 1_000_000n,
        extra: [keyValue(9, 'k', pb.bytes(1, Buffer.from([0x76, 0xff])))],
      }),
    ]);
    expect((await post('/v1/traces', proto, 'application/x-protobuf')).status).toBe(200);
    const rows = await h.ch.query<{ operation: string; attributes: Record<string, string> }>(
      'SELECT operation, attributes FROM spans WHERE project_id = {p:String} AND trace_id IN ({a:String}, {b:String}) ORDER BY trace_id = {a:String} DESC',
      { p: key.projectId, a: json.traceId, b: traceId.toString('hex') },
    );
    expect(rows).toEqual([
      { operation: 'x\ufffd', attributes: { 'k\ufffd': 'v\ufffd' } },
      { operation: 'x\ufffd\ufffd\ufffd', attributes: { k: 'v\ufffd' } },
    ]);
  });
});

describe('OTLP bodies with more records than a request may carry', () => {
  const manySpans = (count: number) =>
    traceRequestBody(
      Array.from({ length: count }, (_, i) =>
        protoSpan({
          traceId: Buffer.alloc(16, 1),
          spanId: Buffer.from(i.toString(16).padStart(16, '1'), 'hex'),
          name: `op ${i % 50}`,
          startNs: BigInt(NOW) * 1_000_000n + BigInt(i),
          endNs: BigInt(NOW) * 1_000_000n + BigInt(i) + 500n,
        }),
      ),
    );

  it('are refused with 413 while they are decoded, not after', async () => {
    const body = manySpans(100_000);
    const slices = new WorkSlices(64 * 1024, async () => {});
    await expect(
      decodeProtobuf(body, traceRequest, { slices, maxCounted: MAX_RECORDS_PER_REQUEST }),
    ).rejects.toBeInstanceOf(TooManyElementsError);
    // It stopped at the first span past the limit: about a fifth of the body was read.
    expect(slices.total).toBeLessThan((body.length * (MAX_RECORDS_PER_REQUEST + 1)) / 100_000 + 1000);
    const res = await post('/v1/traces', body, 'application/x-protobuf');
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
    expect(res.body.message).toContain(`more than ${MAX_RECORDS_PER_REQUEST} spans`);
  });

  it('decode in slices: a pause after every slice of bytes, none longer than a slice and a span', async () => {
    const body = manySpans(MAX_RECORDS_PER_REQUEST);
    const slices = new WorkSlices(64 * 1024, async () => {});
    const decoded = (await decodeProtobuf(body, traceRequest, { slices })) as {
      resourceSpans: { scopeSpans: { spans: unknown[] }[] }[];
    };
    expect(decoded.resourceSpans[0]!.scopeSpans[0]!.spans).toHaveLength(MAX_RECORDS_PER_REQUEST);
    expect(slices.pauses).toBeGreaterThanOrEqual(Math.floor(body.length / (64 * 1024)) - 1);
    expect(slices.largestSlice).toBeLessThan(64 * 1024 + 100);
  });
});

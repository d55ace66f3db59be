import { traceAggregateOutput } from '@svc/tools-trace';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import { insertLiteralRows, Ms } from '../../testing/hostile-rows';
import { type OtlpTestSpan, postOtlpTraces } from '../../testing/otlp-spans';
import { referenceAggregate } from '../../testing/trace-aggregate-reference';

// trace.aggregate where span names carry ids ('GET /user/123': every span its own operation, as
// un-templated routes are named): 70,000 operations must cost what a page of them costs, and a
// page of 10,000 must answer. Expected answers are computed from the spans sent
// (trace-aggregate-reference.ts).

const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const key: TestKey = { keyId: 'tao_key', projectId: 'tao_p', secret: 'tao-secret-0123456789', active: true };
const OPERATIONS = 70_000;
const SPANS = 80_000;

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

const spans: OtlpTestSpan[] = [
  // 10,000 of the operations twice, the others once.
  ...Array.from(
    { length: SPANS },
    (_, i): OtlpTestSpan => ({
      trace_id: hex(Math.floor(i / 8) + 1, 32),
      span_id: hex(i + 1, 16),
      operation: `GET /user/${i % OPERATIONS}`,
      service: 'api',
      status: i % 97 === 0 ? 'error' : 'ok',
      start_ms: NOW - 1000 - (i % 3600) * 1000,
      duration_ms: 1 + ((i * 7919) % 10_000) / 100,
      ...(i % 5 === 0 ? { sample_rate: 0.25 } : {}),
    }),
  ),
  // A few busy ones, first on every page.
  ...Array.from(
    { length: 900 },
    (_, i): OtlpTestSpan => ({
      trace_id: hex(0x100000 + Math.floor(i / 8), 32),
      span_id: hex(0x100000 + i, 16),
      operation: `GET /hot/${i % 3}`,
      service: 'api',
      status: i % 13 === 0 ? 'error' : 'ok',
      start_ms: NOW - 5000 - i * 100,
      duration_ms: (i * 37) % 500,
      ...(i % 2 === 0 ? { sample_rate: 0.5 } : {}),
    }),
  ),
];

const expected = (limit: number) =>
  referenceAggregate(
    spans.map((s) => ({ ...s, start_time: new Date(s.start_ms).toISOString() })),
    NOW,
    1,
    limit,
  );

describe('trace.aggregate over 70,000 operations', () => {
  let h: CoreHarness;

  beforeAll(async () => {
    h = await createCoreHarness('core_trace_operations', NOW, [key]);
    await postOtlpTraces(h, key, spans);
  });
  afterAll(async () => {
    await h.close();
  });

  async function aggregate(projectId: string, input: unknown) {
    const res = await h.callTool(projectId, 'trace.aggregate', input);
    expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({
      status: 200,
      body: 'ok',
    });
    return traceAggregateOutput.parse(res.body);
  }

  it('answers the busiest 100 with their percentiles and the total over all', async () => {
    expect(await aggregate(key.projectId, { days: 1 })).toEqual(expected(100));
  });

  it('answers a page of 10,000 operations', async () => {
    expect(await aggregate(key.projectId, { days: 1, limit: 10_000 })).toEqual(expected(10_000));
  });

  it('finds the percentiles of operations whose names are not UTF-8 (stored before ingest refused them)', async () => {
    // Both names read 'op-\uFFFD'; the engine orders them by their bytes.
    const rows = [0x80, 0x81].flatMap((byte, k) =>
      [1, 2, 3].map((d, i) => ({
        trace_id: hex(0xbad + k, 32),
        span_id: hex(0xbad0 + k * 8 + i, 16),
        operation: Buffer.from([...Buffer.from('op-'), byte]),
        kind: 'server',
        status: 'ok',
        start_time: new Ms(NOW - 60_000),
        duration_ms: d * 10 ** k,
        sample_rate: 1,
      })),
    );
    await insertLiteralRows(h.ch, 'spans', 'tao_bad', rows);
    const body = await aggregate('tao_bad', { days: 1 });
    expect(body.operations).toEqual([
      { operation: 'op-\uFFFD', count: 3, spans: 3, p50_ms: 2, p99_ms: 3, error_rate: 0 },
      { operation: 'op-\uFFFD', count: 3, spans: 3, p50_ms: 20, p99_ms: 30, error_rate: 0 },
    ]);
  });
});

import request from 'supertest';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import { rateFromTraceState } from './otlp-traces';

// OTLP/HTTP JSON as OpenTelemetry's exporters send it (ids in hex, times in nanoseconds as decimal
// strings, enums as numbers), read back through trace.get.

const NOW = Date.now();
const key: TestKey = {
  keyId: 'otlp_key',
  projectId: 'otlp_p',
  secret: 'otlp-secret-0123456789',
  active: true,
};
const TRACE = '5b8efff798038103d269b633813fc60c';

const ns = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
const kv = (key: string, value: Record<string, unknown>) => ({ key, value });

function otlp(traceId = TRACE) {
  const t0 = NOW - 60_000;
  return {
    resourceSpans: [
      {
        resource: { attributes: [kv('service.name', { stringValue: 'checkout' })] },
        scopeSpans: [
          {
            scope: { name: '@opentelemetry/instrumentation-http', version: '0.57.0' },
            spans: [
              {
                traceId,
                spanId: 'eee19b7ec3c1b174',
                parentSpanId: '',
                name: 'POST /v1/checkout',
                kind: 2,
                startTimeUnixNano: ns(t0),
                endTimeUnixNano: `${BigInt(t0) * 1_000_000n + 812_500_000n}`,
                attributes: [
                  kv('http.method', { stringValue: 'POST' }),
                  kv('http.status_code', { intValue: 201 }),
                  kv('enduser.id', { stringValue: 'u_42' }),
                ],
                status: { code: 0 },
                events: [{ name: 'ignored', timeUnixNano: ns(t0) }],
              },
              {
                traceId,
                spanId: 'eee19b7ec3c1b175',
                parentSpanId: 'eee19b7ec3c1b174',
                name: 'pg.query:INSERT',
                kind: 'SPAN_KIND_CLIENT',
                startTimeUnixNano: ns(t0 + 10),
                endTimeUnixNano: ns(t0 + 30),
                attributes: [kv('db.retry', { boolValue: true }), kv('sampling.rate', { doubleValue: 0.5 })],
                status: { code: 2, message: 'deadlock' },
              },
            ],
          },
        ],
      },
    ],
  };
}

let h: CoreHarness;

beforeAll(async () => {
  h = await createCoreHarness('core_otlp', NOW, [key]);
});
afterAll(async () => {
  await h.close();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  request(h.app)
    .post('/v1/traces')
    .set({ 'content-type': 'application/json', 'x-svc-ingest-key': `${key.keyId}:${key.secret}`, ...headers })
    .send(typeof body === 'string' ? body : JSON.stringify(body));

describe('POST /v1/traces (OTLP/HTTP JSON)', () => {
  it('stores the spans as one trace: service from the resource, kinds, status, duration, user, rate', async () => {
    const res = await post(otlp());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const trace = (await h.callTool('otlp_p', 'trace.get', { trace_id: TRACE })).body;
    expect(trace).toMatchObject({ found: true, span_count: 2, error: true, services: ['checkout'] });
    const [root] = trace.spans;
    expect(root).toMatchObject({
      operation: 'POST /v1/checkout',
      service: 'checkout',
      kind: 'server',
      status: 'unset',
      duration_ms: 812.5,
      user_id: 'u_42',
      attributes: { 'http.method': 'POST', 'http.status_code': '201', 'enduser.id': 'u_42' },
    });
    expect(root.children).toEqual([
      expect.objectContaining({
        operation: 'pg.query:INSERT',
        kind: 'client',
        status: 'error',
        duration_ms: 20,
        sample_rate: 0.5,
        attributes: { 'db.retry': 'true', 'sampling.rate': '0.5' },
      }),
    ]);
  });

  it('stores a retried body once', async () => {
    const traceId = 'aa8efff798038103d269b633813fc60c';
    expect((await post(otlp(traceId))).status).toBe(200);
    expect((await post(otlp(traceId))).status).toBe(200);
    expect((await h.callTool('otlp_p', 'trace.get', { trace_id: traceId })).body.span_count).toBe(2);
  });

  it('stores a retried body once when its first insert went in together with other requests', async () => {
    const traceId = 'bb8efff798038103d269b633813fc60c';
    const others = (n: number) =>
      Array.from({ length: n }, (_, i) => post(otlp(`c${n}${i}`.padEnd(32, '7'))));
    const first = await Promise.all([post(otlp(traceId)), ...others(3)]);
    const again = await Promise.all([post(otlp(traceId)), ...others(2)]);
    expect([...first, ...again].map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200]);
    expect((await h.callTool('otlp_p', 'trace.get', { trace_id: traceId })).body.span_count).toBe(2);
  });

  it('refuses a missing or wrong key, a body that is not OTLP, and spans it cannot map, naming the problem', async () => {
    expect((await post(otlp(), { 'x-svc-ingest-key': `${key.keyId}:wrong` })).status).toBe(401);
    expect((await post(otlp(), { 'x-svc-ingest-key': 'nonsense' })).status).toBe(401);
    const proto = await post('\u0000binary', { 'content-type': 'application/x-protobuf' });
    expect(proto.status).toBe(400);
    expect(proto.body.message).toContain('not an OTLP protobuf message');
    const text = await post('spans', { 'content-type': 'text/plain' });
    expect(text.status).toBe(400);
    expect(text.body.message).toContain('application/x-protobuf (http/protobuf) or application/json');
    const bad = otlp('not-a-trace-id');
    const res = await post(bad);
    expect(res.status).toBe(400);
    // Each span of the trace is named by the field that is wrong.
    expect(res.body.details).toEqual(
      [0, 1].map((n) => ({
        path: `resourceSpans[0].scopeSpans[0].spans[${n}].traceId`,
        reason: 'must be 32 hex characters (16 bytes)',
      })),
    );
  });
});

describe('rateFromTraceState', () => {
  it.each([
    ['ot=th:8', 0.5],
    ['ot=th:c', 0.25],
    ['ot=th:0', 1],
    ['vendor=x,ot=th:fd70a4;rv:abcdef01234567', 1 - 0xfd70a400000000 / 2 ** 56],
    ['ot=p:2', 0.25],
    ['ot=rv:abcdef01234567;th:8', 0.5],
  ])('reads the OpenTelemetry sampling probability from %s', (state, rate) => {
    expect(rateFromTraceState(state)).toBeCloseTo(rate, 12);
  });

  it.each([undefined, '', 'vendor=th:8', 'ot=th:xyz', 'ot=th:123456789abcdef', 'ot=p:63'])(
    'finds none in %s',
    (state) => {
      expect(rateFromTraceState(state)).toBeUndefined();
    },
  );
});

import request from 'supertest';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import { levelOf } from './otlp-logs';

// OTLP/HTTP JSON logs as OpenTelemetry's log exporters send them, read back with log.search.

const NOW = Date.now();
const key: TestKey = {
  keyId: 'otlp_logs_key',
  projectId: 'otlp_logs',
  secret: 'otlp-logs-secret-0123',
  active: true,
};
const TRACE = '7c8efff798038103d269b633813fc60c';
const ns = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

let h: CoreHarness;
beforeAll(async () => {
  h = await createCoreHarness('core_otlp_logs', NOW, [key]);
});
afterAll(async () => {
  await h.close();
});

const post = (body: unknown) =>
  request(h.app)
    .post('/v1/logs')
    .set({ 'content-type': 'application/json', 'x-svc-ingest-key': `${key.keyId}:${key.secret}` })
    .send(JSON.stringify(body));

describe('POST /v1/logs (OTLP/HTTP JSON)', () => {
  it('stores each record with its level, message, trace ids, user and service', async () => {
    const res = await post({
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'billing' } }] },
          scopeLogs: [
            {
              logRecords: [
                {
                  timeUnixNano: ns(NOW - 5_000),
                  severityNumber: 17,
                  severityText: 'ERROR',
                  body: { stringValue: 'otlp invoice failed' },
                  attributes: [{ key: 'enduser.id', value: { stringValue: 'u_7' } }],
                  traceId: TRACE.toUpperCase(),
                  spanId: 'EEE19B7EC3C1B174',
                },
                {
                  timeUnixNano: '0',
                  observedTimeUnixNano: ns(NOW - 4_000),
                  severityText: 'warning',
                  body: { kvlistValue: { values: [{ key: 'otlp', value: { intValue: 1 } }] } },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    const { items } = (await h.callTool('otlp_logs', 'log.search', { search: 'otlp' })).body as {
      items: Record<string, unknown>[];
    };
    expect(items).toEqual([
      expect.objectContaining({ level: 'WARN', message: '{"otlp":"1"}', trace_id: null }),
      expect.objectContaining({
        level: 'ERROR',
        message: 'otlp invoice failed',
        source: 'backend',
        trace_id: TRACE,
        user_id: 'u_7',
      }),
    ]);
  });

  it('maps OTLP severity numbers in groups of four, else the text, else INFO', () => {
    expect([1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24].map((n) => levelOf(n, undefined))).toEqual([
      'DEBUG',
      'DEBUG',
      'DEBUG',
      'DEBUG',
      'INFO',
      'INFO',
      'WARN',
      'WARN',
      'ERROR',
      'ERROR',
      'FATAL',
      'FATAL',
    ]);
    expect([levelOf(undefined, 'fatal'), levelOf(0, 'TRACE'), levelOf(undefined, 'whatever')]).toEqual([
      'FATAL',
      'DEBUG',
      'INFO',
    ]);
  });
});

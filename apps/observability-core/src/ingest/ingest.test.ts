import { generateDemoProject } from '@svc/demo-data';
import { signIngestBody } from '@svc/ingest-auth';
import request from 'supertest';
import { crashSignature } from '../symbolication/crash-signature';
import { type CoreHarness, createCoreHarness, type TestKey } from '../testing/core-harness';

// Near the real clock: rows older than the tables' TTL would be dropped by ClickHouse on insert.
const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;
/** `ms` written as local time at UTC+02:00, to show zone offsets are honoured. */
const plusTwo = (ms: number) => `${new Date(ms + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`;
const keyA: TestKey = { keyId: 'key_a', projectId: 'proj_a', secret: 'secret-a-0123456789', active: true };
const keyB: TestKey = { keyId: 'key_b', projectId: 'proj_b', secret: 'secret-b-0123456789', active: true };
const revoked: TestKey = {
  keyId: 'key_old',
  projectId: 'proj_a',
  secret: 'secret-old-012345',
  active: false,
};

const demo = generateDemoProject({ seed: 5, size: 0.1, now: NOW, days: 3 });

async function countRows(h: CoreHarness, table: string, projectId: string): Promise<number> {
  const [row] = await h.ch.query<{ n: string }>(
    `SELECT count() AS n FROM ${table} WHERE project_id = {p:String}`,
    { p: projectId },
  );
  return Number(row?.n ?? 0);
}

describe('POST /ingest/v1/batch', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    h = await createCoreHarness('core_ingest', NOW, [keyA, keyB, revoked]);
  });
  afterAll(async () => {
    await h.close();
  });

  it('writes a valid batch of every record type into the key project', async () => {
    const body = {
      logs: demo.logs,
      crashes: demo.crashes,
      sessions: demo.sessions,
      spans: [
        {
          trace_id: 'A'.repeat(32),
          span_id: 'b'.repeat(16),
          kind: 'server',
          status: 'ok',
          operation: 'GET /api/v1/feed',
          start_time: NOW - 1000,
          duration_ms: 12.5,
          sample_rate: 0.25,
        },
      ],
      metrics: [{ timestamp: NOW - 5000, name: 'memory_mb', value: 182.5, session_id: 's1' }],
      events: [
        {
          timestamp: plusTwo(NOW - 3_600_000),
          event_name: 'signup',
          user_id: 'u1',
          properties: { utm_source: 'newsletter', plan: 'pro' },
        },
      ],
      feedback: [{ timestamp: NOW - 1, user_id: 'u1', message: 'Love it', rating: 5 }],
      experiments: [{ experiment_key: 'checkout_v2', goal_event: 'purchase', variants: ['control', 'B'] }],
    };
    const res = await h.ingest(keyA, body).expect(200);
    expect(res.body).toEqual({
      accepted: {
        logs: demo.logs.length,
        crashes: demo.crashes.length,
        spans: 1,
        metrics: 1,
        events: 1,
        feedback: 1,
        sessions: demo.sessions.length,
        experiments: 1,
      },
    });
    expect(await countRows(h, 'logs', 'proj_a')).toBe(demo.logs.length);
    expect(await countRows(h, 'logs', 'proj_b')).toBe(0);

    const [span] = await h.ch.query<{ trace_id: string; weight: number }>(
      "SELECT trace_id, weight FROM spans WHERE project_id = 'proj_a'",
    );
    expect(span).toEqual({ trace_id: 'a'.repeat(32), weight: 4 });
    const [event] = await h.ch.query<{ ts: string; utm_source: string }>(
      "SELECT toUnixTimestamp64Milli(timestamp) AS ts, utm_source FROM events WHERE project_id = 'proj_a'",
    );
    expect(event).toEqual({ ts: String(NOW - 3_600_000), utm_source: 'newsletter' });
  });

  it('computes the documented signature for crashes sent without one', async () => {
    const crash = demo.crashes[0]!;
    const { signature: _none, ...unsigned } = { ...crash, event_id: 'sig_test_1', signature: undefined };
    await h.ingest(keyB, { crashes: [unsigned] }).expect(200);
    const [row] = await h.ch.query<{ signature: string }>(
      "SELECT signature FROM crashes WHERE project_id = 'proj_b' AND event_id = 'sig_test_1'",
    );
    const inApp = crash.frames
      .filter((f) => f.in_app)
      .slice(0, 3)
      .map((f) => f.function);
    const { createHash } = await import('node:crypto');
    const expected = createHash('sha256')
      .update([crash.error_type, ...inApp].join('\n'))
      .digest('hex')
      .slice(0, 16);
    expect(row?.signature).toBe(expected);
    expect(crashSignature(crash.error_type, crash.frames)).toBe(expected);
  });

  it('rejects the whole batch when one record is bad, listing every bad record', async () => {
    const before = await countRows(h, 'logs', 'proj_b');
    const good = demo.logs.slice(0, 5);
    const bad = { ...demo.logs[0]!, level: 'VERBOSE' };
    const res = await h
      .ingest(keyB, { logs: [...good, bad], sessions: [{ ...demo.sessions[0]!, started_at: 'yesterday' }] })
      .expect(400);
    expect(res.body.error).toBe('invalid_input');
    expect(res.body.details).toEqual([
      { type: 'logs', index: 5, reason: expect.stringContaining('level') },
      { type: 'sessions', index: 0, reason: expect.stringContaining('started_at') },
    ]);
    expect(await countRows(h, 'logs', 'proj_b')).toBe(before);
    expect(await countRows(h, 'sessions', 'proj_b')).toBe(0);
  });

  it('refuses records the retention TTL would silently drop, and far-future ones', async () => {
    const DAY = 24 * 3_600_000;
    const log = (ts: number) => ({ ...demo.logs[0]!, timestamp: ts });
    const span = {
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      span_id: '00f067aa0ba902b7',
      kind: 'server',
      status: 'ok',
      operation: 'GET /x',
      start_time: NOW - 15 * DAY,
      duration_ms: 5,
    };
    const before = await countRows(h, 'logs', 'proj_b');
    const res = await h
      .ingest(keyB, { logs: [log(NOW - 89 * DAY), log(NOW - 91 * DAY), log(NOW + 2 * DAY)], spans: [span] })
      .expect(400);
    expect(res.body.details).toEqual([
      { type: 'logs', index: 1, reason: 'timestamp: older than the 90-day retention of logs' },
      { type: 'logs', index: 2, reason: 'timestamp: more than a day in the future' },
      { type: 'spans', index: 0, reason: 'start_time: older than the 14-day retention of spans' },
    ]);
    expect(await countRows(h, 'logs', 'proj_b')).toBe(before);
    await h
      .ingest(keyB, { logs: [log(NOW - 89 * DAY)], spans: [{ ...span, start_time: NOW - 13 * DAY }] })
      .expect(200);
    expect(await countRows(h, 'logs', 'proj_b')).toBe(before + 1);
  });

  it('refuses a project_id inside a record', async () => {
    const res = await h.ingest(keyB, { logs: [{ ...demo.logs[0]!, project_id: 'proj_a' }] }).expect(400);
    expect(res.body.details).toEqual([
      { type: 'logs', index: 0, reason: expect.stringContaining('project_id') },
    ]);
  });

  it('rejects unknown top-level keys and non-JSON bodies', async () => {
    await h.ingest(keyB, { logz: [] }).expect(400);
    await h.ingest(keyB, '{not json').expect(400);
  });

  it('answers 401 to a wrong signature, a stale or future timestamp, an unknown or inactive key', async () => {
    const body = JSON.stringify({ logs: demo.logs.slice(0, 1) });
    const ts = Math.floor(NOW / 1000);
    const send = (headers: Record<string, string>) =>
      request(h.app).post('/ingest/v1/batch').set('Content-Type', 'application/json').set(headers).send(body);

    const wrongSecret = signIngestBody('not-the-secret', ts, body);
    await send({
      'X-Svc-Key': keyA.keyId,
      'X-Svc-Timestamp': String(ts),
      'X-Svc-Signature': wrongSecret,
    }).expect(401);
    // Signed over another body.
    const otherBody = signIngestBody(keyA.secret, ts, `${body} `);
    await send({
      'X-Svc-Key': keyA.keyId,
      'X-Svc-Timestamp': String(ts),
      'X-Svc-Signature': otherBody,
    }).expect(401);
    for (const skewed of [ts - 301, ts + 301]) {
      const sig = signIngestBody(keyA.secret, skewed, body);
      await send({
        'X-Svc-Key': keyA.keyId,
        'X-Svc-Timestamp': String(skewed),
        'X-Svc-Signature': sig,
      }).expect(401);
    }
    const within = ts - 299;
    await send({
      'X-Svc-Key': keyA.keyId,
      'X-Svc-Timestamp': String(within),
      'X-Svc-Signature': signIngestBody(keyA.secret, within, body),
    }).expect(200);
    const unknown = signIngestBody(keyA.secret, ts, body);
    await send({ 'X-Svc-Key': 'key_nope', 'X-Svc-Timestamp': String(ts), 'X-Svc-Signature': unknown }).expect(
      401,
    );
    const inactive = signIngestBody(revoked.secret, ts, body);
    const res = await send({
      'X-Svc-Key': revoked.keyId,
      'X-Svc-Timestamp': String(ts),
      'X-Svc-Signature': inactive,
    }).expect(401);
    expect(res.body.error).toBe('unauthorized');
    await send({}).expect(401);
  });

  it('answers 413 beyond the body limit', async () => {
    const big = JSON.stringify({ logs: [{ ...demo.logs[0]!, message: 'x'.repeat(11 * 1024 * 1024) }] });
    const res = await h.ingest(keyA, big);
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
  });
});

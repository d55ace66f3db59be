import request from 'supertest';
import { type CoreHarness, createCoreHarness, INTERNAL_SECRET } from '../testing/core-harness';

// POST /internal/v1/projects/{project_id}/ingest: the stack's own spans, sent with the internal
// secret. Same batch, same validation and the same writer as /ingest/v1/batch; the project is the
// path's, never a key's.

const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;

const span = (n: number, extra: Record<string, unknown> = {}) => ({
  trace_id: `${'a'.repeat(28)}${String(n).padStart(4, '0')}`,
  span_id: `${'b'.repeat(12)}${String(n).padStart(4, '0')}`,
  kind: 'server',
  status: 'ok',
  operation: 'POST /v1/tools/:name',
  service: 'gateway',
  start_time: new Date(NOW - 60_000 + n).toISOString(),
  duration_ms: 12.5,
  ...extra,
});
const log = (n: number) => ({
  timestamp: new Date(NOW - 30_000 + n).toISOString(),
  level: 'INFO',
  message: `line ${n}`,
  source: 'backend',
});

async function count(h: CoreHarness, table: string, projectId: string): Promise<number> {
  const [row] = await h.ch.query<{ n: string }>(
    `SELECT count() AS n FROM ${table} WHERE project_id = {p:String}`,
    { p: projectId },
  );
  return Number(row?.n ?? 0);
}

describe('POST /internal/v1/projects/{project_id}/ingest', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    h = await createCoreHarness('core_internal_ingest', NOW, []);
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (projectId: string, body: unknown, secret: string | null = INTERNAL_SECRET) => {
    const req = request(h.app)
      .post(`/internal/v1/projects/${encodeURIComponent(projectId)}/ingest`)
      .set('Content-Type', 'application/json');
    if (secret !== null) req.set('X-Internal-Secret', secret);
    return req.send(typeof body === 'string' ? body : JSON.stringify(body));
  };

  it.each([
    ['no secret', null],
    ['an empty secret', ''],
    ['a wrong secret', 'not-the-internal-secret-0123'],
    ['a prefix of the secret', INTERNAL_SECRET.slice(0, -1)],
  ])('refuses %s with 401 and writes nothing', async (_what, secret) => {
    const res = await post('proj_auth', { spans: [span(1)] }, secret).expect(401);
    expect(res.body.error).toBe('unauthorized');
    expect(await count(h, 'spans', 'proj_auth')).toBe(0);
  });

  it("writes into the path's project only, every record type the batch route takes", async () => {
    const beforeOther = await count(h, 'spans', 'proj_other');
    const res = await post('proj_self', { spans: [span(10), span(11)], logs: [log(1)] }).expect(200);
    expect(res.body.accepted).toMatchObject({ spans: 2, logs: 1, crashes: 0 });
    expect(await count(h, 'spans', 'proj_self')).toBe(2);
    expect(await count(h, 'logs', 'proj_self')).toBe(1);
    expect(await count(h, 'spans', 'proj_other')).toBe(beforeOther);

    // Another project's path, same secret: lands there, and proj_self is unchanged.
    await post('proj_other', { spans: [span(20)] }).expect(200);
    expect(await count(h, 'spans', 'proj_other')).toBe(beforeOther + 1);
    expect(await count(h, 'spans', 'proj_self')).toBe(2);
    const [row] = await h.ch.query<{ service: string; operation: string }>(
      'SELECT service, operation FROM spans WHERE project_id = {p:String}',
      { p: 'proj_other' },
    );
    expect(row).toEqual({ service: 'gateway', operation: 'POST /v1/tools/:name' });
  });

  it('refuses a bad batch whole with 400, naming every bad record, and writes nothing', async () => {
    const res = await post('proj_bad', {
      spans: [span(30), span(31, { trace_id: 'not-a-trace-id' })],
      logs: [log(2), { ...log(3), project_id: 'proj_elsewhere' }],
    }).expect(400);
    expect(res.body.error).toBe('invalid_input');
    expect(res.body.details).toEqual([
      { type: 'logs', index: 1, reason: expect.stringContaining('project_id') },
      { type: 'spans', index: 1, reason: expect.stringContaining('trace_id') },
    ]);
    expect(await count(h, 'spans', 'proj_bad')).toBe(0);
    expect(await count(h, 'logs', 'proj_bad')).toBe(0);
  });

  it('refuses a body that is not JSON, unknown top-level keys and a bad project id', async () => {
    expect((await post('proj_bad', '{"spans": [').expect(400)).body.error).toBe('invalid_input');
    expect((await post('proj_bad', { traces: [] }).expect(400)).body.error).toBe('invalid_input');
    expect((await post('-no', { spans: [span(40)] }).expect(400)).body.error).toBe('invalid_input');
    expect(await count(h, 'spans', 'proj_bad')).toBe(0);
  });

  it('stores a retried body once (the exporter retries timeouts)', async () => {
    const body = { spans: [span(50), span(51)] };
    await post('proj_retry', body).expect(200);
    await post('proj_retry', body).expect(200);
    expect(await count(h, 'spans', 'proj_retry')).toBe(2);
    // The same body for another project is that project's.
    await post('proj_retry_2', body).expect(200);
    expect(await count(h, 'spans', 'proj_retry_2')).toBe(2);
  });

  it('stores a lone surrogate as U+FFFD, as every ingest route does (the engine refuses it: 503 before)', async () => {
    const res = await post('proj_surrogate', JSON.stringify({ spans: [span(7, { operation: 'op\ud800' })] }));
    expect(res.status).toBe(200);
    const [row] = await h.ch.query<{ operation: string }>(
      "SELECT operation FROM spans WHERE project_id = 'proj_surrogate'",
    );
    expect(row).toEqual({ operation: 'op\ufffd' });
  });
});

import SwaggerParser from '@apidevtools/swagger-parser';
import { UNLIST_AFTER_FAILED_PROBES } from '@svc/backend-client';
import { logsTools } from '@svc/tools-logs';
import request from 'supertest';
import { type Harness, LOGS, startHarness } from './testing/gateway-harness';
import { controlledProbe, recallProbe } from './testing/test-tools';

let h: Harness;
let token: string;
let tokenId: string;

beforeAll(async () => {
  h = await startHarness();
  ({ token, tokenId } = h.identity.issue({ projectId: 'proj_a' }));
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.identity.failAudit = false;
});

const call = (tool: string, body: unknown, bearer = token) =>
  request(h.url)
    .post(`/v1/tools/${tool}`)
    .set('Authorization', `Bearer ${bearer}`)
    .send(body as object);

describe('REST tool calls', () => {
  it('returns the tool result for the token project only, and audits the call before answering', async () => {
    const auditedBefore = h.identity.audit.length;
    const res = await call('log.recent', { limit: 2 });
    expect(res.status).toBe(200);
    const expected = LOGS.filter((l) => l.project_id === 'proj_a')
      .sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1))
      .slice(0, 2)
      .map((l) => l.message);
    expect(res.body.items.map((i: { message: string }) => i.message)).toEqual(expected);
    expect(res.body).toMatchObject({ limit: 2, has_more: true });
    expect(h.core.calls.at(-1)).toEqual({ projectId: 'proj_a', tool: 'log.recent', input: { limit: 2 } });
    const records = h.identity.audit.slice(auditedBefore);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      token_id: tokenId,
      project_id: 'proj_a',
      tool: 'log.recent',
      transport: 'rest',
      status: 'ok',
      params: { limit: 2 },
      request_id: res.headers['x-request-id'],
    });
  });

  it("audits the web console's calls as console: its own token only, never a client's claim", async () => {
    const consoleToken = h.identity.issue({ projectId: 'proj_a', console: true });
    const before = h.identity.audit.length;
    expect((await call('log.recent', { limit: 1 }, consoleToken.token)).status).toBe(200);
    // A client's token stays rest whatever it sends along.
    const claimed = await request(h.url)
      .post('/v1/tools/log.recent')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Svc-Actor', JSON.stringify({ token_id: null, user_id: null, transport: 'console' }))
      .set('X-Svc-Transport', 'console')
      .set('User-Agent', 'svc-console')
      .send({ limit: 1 });
    expect(claimed.status).toBe(200);
    expect(h.identity.audit.slice(before).map((r) => [r.token_id, r.transport])).toEqual([
      [consoleToken.tokenId, 'console'],
      [tokenId, 'rest'],
    ]);
  });

  it('refuses project_id in the input with 400 and never calls the backend', async () => {
    const callsBefore = h.core.calls.length;
    const res = await call('log.recent', { project_id: 'proj_b' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_input');
    expect(h.core.calls.length).toBe(callsBefore);
    expect(h.identity.audit.at(-1)).toMatchObject({ status: 'invalid_input', project_id: 'proj_a' });
  });

  it('answers a hidden tool exactly like an unknown one (404 not_found)', async () => {
    const hidden = await call(controlledProbe.name, {});
    const unknown = await call('nope.tool', {});
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(hidden.body.error).toBe('not_found');
    expect(JSON.stringify(hidden.body).replace(controlledProbe.name, 'X')).toBe(
      JSON.stringify(unknown.body).replace('nope.tool', 'X'),
    );
    h.identity.orgCapabilities.set('org_vis', ['vis_trace']);
    const withCapability = h.identity.issue({ orgId: 'org_vis' });
    const visible = await call(controlledProbe.name, {}, withCapability.token);
    expect(visible.status).toBe(200);
    expect(visible.body).toEqual({ served_by: 'core', project: 'proj_a' });
  });

  it('fails with 503 and sends no data when the audit store cannot be written', async () => {
    h.identity.failAudit = true;
    const res = await call('log.recent', {});
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('backend_unavailable');
    expect(res.body.items).toBeUndefined();
    for (const l of LOGS) expect(res.text).not.toContain(l.message);
  });

  it('maps a failing backend to 503 without echoing its error text', async () => {
    const res = await call('log.search', { search: 'x' });
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('backend_unavailable');
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toContain('logs_secret');
  });

  it('rejects a non-JSON body with 400', async () => {
    const res = await request(h.url)
      .post('/v1/tools/log.recent')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'text/plain')
      .send('limit=2');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_input');
  });
});

describe('origin and host checks', () => {
  it.each([
    ['POST /v1/tools/log.recent', (o: string) => call('log.recent', {}).set('Origin', o)],
    [
      'POST /mcp',
      (o: string) =>
        request(h.url).post('/mcp').set('Authorization', `Bearer ${token}`).set('Origin', o).send({}),
    ],
    ['GET /healthz', (o: string) => request(h.url).get('/healthz').set('Origin', o)],
  ])('%s: a foreign Origin gets 403 forbidden_origin', async (_route, send) => {
    const res = await send('https://evil.example');
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden_origin');
  });

  it('lets an allowed Origin through', async () => {
    const res = await call('log.recent', {}).set('Origin', 'https://console.example.com');
    expect(res.status).toBe(200);
  });

  it('lets a same-origin request through (Origin names the Host it was sent to)', async () => {
    const res = await call('log.recent', {})
      .set('Host', 'localhost:4242')
      .set('Origin', 'http://localhost:4242');
    expect(res.status).toBe(200);
    const otherPort = await call('log.recent', {})
      .set('Host', 'localhost:4242')
      .set('Origin', 'http://localhost:4243');
    expect(otherPort.status).toBe(403);
  });

  it('refuses a rebinding page even though it looks same-origin', async () => {
    const res = await request(h.url)
      .get('/healthz')
      .set('Host', 'evil.example:8092')
      .set('Origin', 'http://evil.example:8092');
    expect(res.status).toBe(403);
  });

  it('refuses a foreign Host on a loopback bind (DNS rebinding) and accepts loopback names', async () => {
    const rebound = await request(h.url).get('/healthz').set('Host', 'evil.example:8092');
    expect(rebound.status).toBe(403);
    expect(rebound.body.error).toBe('forbidden_origin');
    const mcp = await request(h.url).post('/mcp').set('Host', 'attacker.test').send({});
    expect(mcp.status).toBe(403);
    for (const host of ['localhost:8092', '127.0.0.1', '[::1]:9']) {
      expect((await request(h.url).get('/healthz').set('Host', host)).status).toBe(200);
    }
  });
});

describe('public endpoints', () => {
  it('GET /healthz needs no token and reports backends', async () => {
    const res = await request(h.url).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.backends.recall).toMatchObject({ deployed: true, available: true });
    expect(res.body.backends.copilot).toMatchObject({ deployed: false, available: false });
  });

  it('GET /openapi.json is valid OpenAPI 3.1 with exactly the published tools and no project_id', async () => {
    const expectedNames = [...logsTools, controlledProbe, recallProbe].map((t) => t.name).sort();
    const res = await request(h.url).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(res.body));
    const names = Object.keys(res.body.paths)
      .map((p) => p.replace('/v1/tools/', ''))
      .sort();
    expect(names).toEqual(expectedNames);
    expect(res.text).not.toContain('project_id');

    h.recall.healthy = false;
    for (let i = 0; i < UNLIST_AFTER_FAILED_PROBES; i++) await h.monitor.probeNow();
    try {
      const without = await request(h.url).get('/openapi.json');
      expect(Object.keys(without.body.paths)).not.toContain(`/v1/tools/${recallProbe.name}`);
      expect(Object.keys(without.body.paths)).toHaveLength(expectedNames.length - 1);
    } finally {
      h.recall.healthy = true;
      await h.monitor.probeNow();
    }
  });

  it.each([
    ['GET', '/v1/tools/log.search', 'POST'],
    ['PUT', '/v1/tools/log.search', 'POST'],
    ['DELETE', '/v1/tools/no.such_tool', 'POST'],
    ['POST', '/openapi.json', 'GET'],
    ['POST', '/healthz', 'GET'],
    ['PUT', '/mcp', 'POST, GET, DELETE'],
  ])('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
    const res = await request(h.url)[method.toLowerCase() as 'get'](path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.body).toEqual({ error: 'method_not_allowed', message: `Method not allowed; use ${allow}.` });
  });

  it('answers unknown routes with the one error shape', async () => {
    const res = await request(h.url).get('/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'Not found.' });
  });
});

describe('limits', () => {
  it('refuses a body over SVC_BODY_LIMIT with 413, over REST and MCP', async () => {
    const small = await startHarness({ bodyLimit: '1kb' });
    try {
      const t = small.identity.issue().token;
      const big = { search: 'x'.repeat(2000) };
      const rest = await request(small.url)
        .post('/v1/tools/log.search')
        .set('Authorization', `Bearer ${t}`)
        .send(big);
      expect(rest.status).toBe(413);
      expect(rest.body.error).toBe('payload_too_large');
      const mcp = await request(small.url)
        .post('/mcp')
        .set('Authorization', `Bearer ${t}`)
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(2000) } });
      expect(mcp.status).toBe(413);
      expect(small.core.calls).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('rate-limits per token with 429 and Retry-After', async () => {
    const limited = await startHarness({
      limits: {
        perTokenPerMinute: 3,
        perProjectPerMinute: 3000,
        concurrentPerToken: 32,
        concurrentPerProject: 64,
        concurrentPerOrg: 96,
      },
    });
    try {
      const first = limited.identity.issue().token;
      const second = limited.identity.issue().token;
      const hit = (t: string) =>
        request(limited.url).post('/v1/tools/log.recent').set('Authorization', `Bearer ${t}`).send({});
      for (let i = 0; i < 3; i++) expect((await hit(first)).status).toBe(200);
      const refused = await hit(first);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await hit(second)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

import { generateToken } from '@svc/auth';
import request from 'supertest';
import { type Harness, startHarness } from './testing/gateway-harness';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

type Call = (h: Harness, authorization: string | undefined) => request.Test;

const withAuth = (test: request.Test, authorization: string | undefined) =>
  authorization === undefined ? test : test.set('Authorization', authorization);

/** Every authenticated route of the gateway. */
const ROUTES: Record<string, Call> = {
  'POST /v1/tools/log.recent': (h, a) => withAuth(request(h.url).post('/v1/tools/log.recent').send({}), a),
  'POST /mcp': (h, a) =>
    withAuth(
      request(h.url).post('/mcp').set('Accept', 'application/json, text/event-stream').send(INITIALIZE),
      a,
    ),
  'GET /mcp': (h, a) => withAuth(request(h.url).get('/mcp').set('Accept', 'text/event-stream'), a),
  'DELETE /mcp': (h, a) => withAuth(request(h.url).delete('/mcp'), a),
};

function badChecksum(token: string): string {
  const last = token.at(-1) === 'a' ? 'b' : 'a';
  return token.slice(0, -1) + last;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe.each(Object.entries(ROUTES))('auth matrix: %s', (_route, call) => {
  const expect401 = async (authorization: string | undefined) => {
    const res = await call(h, authorization);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toContain('Bearer');
    expect(JSON.stringify(res.body)).not.toContain('a failed');
  };

  it.each([
    ['no header', () => undefined],
    ['wrong scheme', () => `Basic ${generateToken()}`],
    ['malformed token', () => 'Bearer svc_pat_short'],
    ['bad checksum', () => `Bearer ${badChecksum(generateToken())}`],
    ['two credentials', () => `Bearer ${generateToken()} ${generateToken()}`],
  ])('%s: 401 without asking identity', async (_case, header) => {
    const before = h.identity.introspections;
    await expect401(header());
    expect(h.identity.introspections).toBe(before);
  });

  it('unknown token: 401 after introspection', async () => {
    const before = h.identity.introspections;
    await expect401(`Bearer ${generateToken()}`);
    expect(h.identity.introspections).toBe(before + 1);
  });

  it('expired token: 401', async () => {
    const { token } = h.identity.issue({ expiresAt: new Date(Date.now() - 1000) });
    await expect401(`Bearer ${token}`);
  });

  it('token without mcp:read (a general API token): 401', async () => {
    const { token } = h.identity.issue({ scopes: ['api:read'] });
    await expect401(`Bearer ${token}`);
  });

  it('token bound to no project: 401', async () => {
    const { token } = h.identity.issue({ projectId: null });
    await expect401(`Bearer ${token}`);
  });
});

describe('revocation', () => {
  it('a revoked token fails on the very next call, over REST and MCP', async () => {
    const { token, tokenId } = h.identity.issue();
    const ok = await ROUTES['POST /v1/tools/log.recent']!(h, `Bearer ${token}`);
    expect(ok.status).toBe(200);
    const init = await ROUTES['POST /mcp']!(h, `Bearer ${token}`);
    expect(init.status).toBe(200);
    h.identity.revoke(tokenId);
    for (const call of Object.values(ROUTES)) {
      const res = await call(h, `Bearer ${token}`);
      expect(res.status).toBe(401);
    }
  });
});

describe('security events', () => {
  it('counts refusals by reason in the metrics', async () => {
    await ROUTES['POST /v1/tools/log.recent']!(h, 'Bearer nope');
    const text = await h.metrics.render();
    expect(text).toMatch(/svc_gateway_auth_failures_total\{reason="malformed_token"\} \d+/);
    expect(text).toMatch(/svc_gateway_auth_failures_total\{reason="inactive"\} \d+/);
    expect(text).toMatch(/svc_gateway_auth_failures_total\{reason="missing_scope"\} \d+/);
  });
});

describe('identity unreachable', () => {
  it('fails closed with 503 on every route and never returns a result', async () => {
    const down = await startHarness();
    try {
      const { token } = down.identity.issue();
      await down.identity.close();
      for (const call of Object.values(ROUTES)) {
        const res = await call(down, `Bearer ${token}`);
        expect(res.status).toBe(503);
        expect(res.body.error).toBe('backend_unavailable');
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
        expect(res.body.items).toBeUndefined();
        expect(res.body.result).toBeUndefined();
      }
      expect(down.core.calls).toEqual([]);
    } finally {
      await down.close();
    }
  });
});

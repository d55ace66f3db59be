import { randomBytes } from 'node:crypto';
import { generateToken } from '@svc/auth';
import request from 'supertest';
import { resourcePortMismatch } from './oauth-protected-resource';
import { type Harness, startHarness } from './testing/gateway-harness';

const PUBLIC = 'https://mcp.example.test';
const ISSUER = 'https://id.example.test/oauth';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ publicUrl: PUBLIC, oauthIssuer: ISSUER });
});
afterAll(async () => {
  await h.close();
});

const METADATA_URL = `${PUBLIC}/.well-known/oauth-protected-resource/mcp`;

describe('protected resource metadata (RFC 9728)', () => {
  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])(
    '%s names the resource, identity as its authorization server and mcp:read, to any origin',
    async (path) => {
      const res = await request(h.url).get(path).set('Origin', 'http://localhost:6274').expect(200);
      expect(res.body).toEqual({
        resource: `${PUBLIC}/mcp`,
        authorization_servers: [ISSUER],
        scopes_supported: ['mcp:read'],
        bearer_methods_supported: ['header'],
        resource_name: expect.any(String),
      });
      expect(res.headers['access-control-allow-origin']).toBe('*');
    },
  );

  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/healthz'])(
    '%s refuses a foreign Host on a loopback bind (DNS rebinding), as every route does, and never names it',
    async (path) => {
      const res = await request(h.url).get(path).set('Host', 'evil.example').expect(403);
      expect(JSON.stringify(res.body)).not.toContain('evil.example');
      const ok = await request(h.url).get(path).set('Host', 'localhost:1234');
      expect(ok.status).toBe(200);
      expect(JSON.stringify(ok.body)).not.toContain('localhost:1234');
    },
  );

  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])(
    '%s answers a browser preflight (the Inspector sends MCP-Protocol-Version with it)',
    async (path) => {
      const res = await request(h.url)
        .options(path)
        .set('Origin', 'http://localhost:6274')
        .set('Access-Control-Request-Method', 'GET')
        .set('Access-Control-Request-Headers', 'mcp-protocol-version');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-methods']).toBe('GET');
      expect(res.headers['access-control-allow-headers']).toBe('mcp-protocol-version');
    },
  );
});

type Call = (authorization: string | undefined) => request.Test;
const withAuth = (test: request.Test, authorization: string | undefined) =>
  authorization === undefined ? test : test.set('Authorization', authorization);
const ROUTES: Record<string, Call> = {
  'POST /v1/tools/log.recent': (a) => withAuth(request(h.url).post('/v1/tools/log.recent').send({}), a),
  'POST /mcp': (a) =>
    withAuth(request(h.url).post('/mcp').set('Accept', 'application/json, text/event-stream').send({}), a),
  'GET /mcp': (a) => withAuth(request(h.url).get('/mcp').set('Accept', 'text/event-stream'), a),
  'DELETE /mcp': (a) => withAuth(request(h.url).delete('/mcp'), a),
};

describe.each(Object.entries(ROUTES))('401 challenge (RFC 6750, RFC 9728): %s', (_route, call) => {
  it('no credential: where to sign in, no error code', async () => {
    const res = await call(undefined);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${METADATA_URL}", scope="mcp:read"`,
    );
    expect(res.body.error).toBe('unauthorized');
  });

  it.each([
    ['malformed', () => 'Bearer nope'],
    ['unknown pasted token', () => `Bearer ${generateToken()}`],
    ['unknown OAuth access token', () => `Bearer ${randomBytes(32).toString('base64url')}`],
  ])('%s: error="invalid_token" as well', async (_case, header) => {
    const res = await call(header());
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${METADATA_URL}", scope="mcp:read", error="invalid_token"`,
    );
  });
});

describe('an OAuth token is accepted only for this gateway (RFC 8707)', () => {
  it.each(Object.entries(ROUTES))(
    '%s: a token issued for another resource is 401 invalid_token',
    async (_route, call) => {
      const { token } = h.identity.issue({ audience: 'https://other-gateway.example.test/mcp' });
      const res = await call(`Bearer ${token}`);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(
        `Bearer resource_metadata="${METADATA_URL}", scope="mcp:read", error="invalid_token"`,
      );
    },
  );

  it('a token issued for this resource reads, as a pasted token does', async () => {
    const { token } = h.identity.issue({ audience: `${PUBLIC}/mcp` });
    const res = await ROUTES['POST /v1/tools/log.recent']!(`Bearer ${token}`);
    expect(res.status).toBe(200);
  });
});

describe('a resource URL that is not where this gateway listens', () => {
  const loopback = { host: '127.0.0.1', port: 9092 };

  it('is named, with its fix, when a loopback gateway is told another loopback port (default 8092 included)', () => {
    for (const publicUrl of [undefined, 'http://localhost:8092']) {
      const warning = resourcePortMismatch({ ...loopback, publicUrl });
      expect(warning).toContain('SVC_PUBLIC_URL');
      expect(warning).toContain('http://localhost:8092/mcp');
      expect(warning).toContain('127.0.0.1:9092');
      expect(warning).toContain('SVC_PUBLIC_URL=http://localhost:9092');
    }
    expect(resourcePortMismatch({ ...loopback, publicUrl: 'https://localhost' })).toContain('port 443');
  });

  it('is not when the ports agree, when the system picks the port, or when something may map it', () => {
    expect(resourcePortMismatch({ ...loopback, publicUrl: 'http://localhost:9092' })).toBeUndefined();
    expect(resourcePortMismatch({ ...loopback, publicUrl: 'http://127.0.0.1:9092/' })).toBeUndefined();
    expect(resourcePortMismatch({ host: '127.0.0.1', port: 0, publicUrl: undefined })).toBeUndefined();
    // All interfaces (a container, a port mapping) or a public name (a proxy): the port may differ.
    expect(
      resourcePortMismatch({ host: '0.0.0.0', port: 8092, publicUrl: 'http://localhost:9000' }),
    ).toBeUndefined();
    expect(resourcePortMismatch({ ...loopback, publicUrl: 'https://mcp.example.com' })).toBeUndefined();
  });
});

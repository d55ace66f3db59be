import { checkTokenFormat, generateToken, tokenFingerprint } from '@svc/auth';
import request from 'supertest';
import { DAY_MS, type Harness, SECRET, seedProject, startHarness } from './testing/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const introspect = (token: string) =>
  h.internal('post', '/internal/v1/introspect').send({ token }).expect(200);

describe('internal secret', () => {
  const routes: [method: 'get' | 'post' | 'put', path: string][] = [
    ['post', '/internal/v1/introspect'],
    ['post', '/internal/v1/console-sessions/introspect'],
    ['get', '/internal/v1/orgs/org_x/capabilities'],
    ['post', '/internal/v1/audit'],
    ['get', '/internal/v1/audit?project_id=p'],
    ['get', '/internal/v1/audit/verify?project_id=p'],
    ['get', '/internal/v1/audit/verify'],
    ['get', '/internal/v1/ingest-keys/key_x'],
    ['post', '/internal/v1/admin/orgs'],
    ['put', '/internal/v1/admin/orgs/org_x/capabilities/vis_trace'],
    ['post', '/internal/v1/admin/users'],
    ['post', '/internal/v1/admin/projects'],
    ['post', '/internal/v1/admin/tokens'],
    ['get', '/internal/v1/admin/tokens?project_id=p'],
    ['post', '/internal/v1/admin/tokens/tok_x/revoke'],
    ['post', '/internal/v1/admin/ingest-keys'],
    ['put', '/internal/v1/admin/ingest-keys/key_x/allowed-origins'],
    ['post', '/internal/v1/admin/bootstrap'],
  ];

  it.each(routes)('%s %s refuses a missing or wrong secret with 401', async (method, path) => {
    const missing = await request(h.app)[method](path).send({});
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe('unauthorized');
    for (const wrong of [`${SECRET}x`, SECRET.slice(0, -1), '', 'nope']) {
      const res = await request(h.app)[method](path).set('X-Internal-Secret', wrong).send({});
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
  });

  it('healthz needs no secret', async () => {
    expect((await request(h.app).get('/healthz').expect(200)).body).toEqual({ status: 'ok' });
  });
});

describe('introspection', () => {
  it('reports an active token with its org capabilities, then inactive right after revocation', async () => {
    const { orgId, projectId } = await seedProject(h, 'lifecycle');
    await h
      .internal('put', `/internal/v1/admin/orgs/${orgId}/capabilities/vis_trace`)
      .send({ enabled: true })
      .expect(200);
    const created = await h
      .internal('post', '/internal/v1/admin/tokens')
      .send({ project_id: projectId })
      .expect(201);
    const { token, token_id } = created.body;
    expect(checkTokenFormat(token)).toBe(true);
    expect(created.body).toEqual({
      token,
      token_id,
      name: 'token',
      project_id: projectId,
      scopes: ['mcp:read'],
      expires_at: new Date(h.clock.now + 90 * DAY_MS).toISOString(),
    });

    expect((await introspect(token)).body).toEqual({
      active: true,
      token_id,
      user_id: null,
      org_id: orgId,
      project_id: projectId,
      scopes: ['mcp:read'],
      expires_at: new Date(h.clock.now + 90 * DAY_MS).toISOString(),
      capabilities: ['vis_trace'],
    });

    // Capability changes show on the next introspection too.
    await h
      .internal('put', `/internal/v1/admin/orgs/${orgId}/capabilities/vis_ai_verifier`)
      .send({ enabled: true })
      .expect(200);
    expect((await introspect(token)).body.capabilities).toEqual(['vis_ai_verifier', 'vis_trace']);

    const revoked = await h.internal('post', `/internal/v1/admin/tokens/${token_id}/revoke`).expect(200);
    expect(revoked.body).toEqual({ token_id, revoked_at: new Date(h.clock.now).toISOString() });
    expect((await introspect(token)).body).toEqual({ active: false });
  });

  it('treats a token as expired from its expires_at on', async () => {
    const { projectId } = await seedProject(h, 'expiry');
    const { token } = (
      await h
        .internal('post', '/internal/v1/admin/tokens')
        .send({ project_id: projectId, days: 1 })
        .expect(201)
    ).body;
    const start = h.clock.now;
    try {
      h.clock.now = start + DAY_MS - 1;
      expect((await introspect(token)).body.active).toBe(true);
      h.clock.now = start + DAY_MS;
      expect((await introspect(token)).body).toEqual({ active: false });
    } finally {
      h.clock.now = start;
    }
  });

  it('answers inactive for unknown and malformed tokens and logs only fingerprints', async () => {
    const unknown = generateToken();
    const malformed = 'svc_pat_definitely-not-a-token';
    expect((await introspect(unknown)).body).toEqual({ active: false });
    expect((await introspect(malformed)).body).toEqual({ active: false });
    const events = h.logs.filter((l) => l.obj.event === 'introspection_failed');
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          obj: { event: 'introspection_failed', reason: 'unknown', token_fp: tokenFingerprint(unknown) },
        }),
        expect.objectContaining({
          obj: { event: 'introspection_failed', reason: 'malformed', token_fp: tokenFingerprint(malformed) },
        }),
      ]),
    );
    const everything = JSON.stringify(h.logs);
    expect(everything).not.toContain(unknown);
    expect(everything).not.toContain(malformed);
  });

  it('rejects a body that is not {token}', async () => {
    expect((await h.internal('post', '/internal/v1/introspect').send({})).status).toBe(400);
    expect((await h.internal('post', '/internal/v1/introspect').send({ token: 'x', extra: 1 })).status).toBe(
      400,
    );
  });
});

describe('org capabilities', () => {
  it('lists enabled controlled capabilities and follows on/off', async () => {
    const { orgId } = await seedProject(h, 'caps');
    const url = `/internal/v1/orgs/${orgId}/capabilities`;
    expect((await h.internal('get', url).expect(200)).body).toEqual({ org_id: orgId, capabilities: [] });
    const put = (cap: string, enabled: boolean) =>
      h.internal('put', `/internal/v1/admin/orgs/${orgId}/capabilities/${cap}`).send({ enabled });
    expect((await put('vis_recall', true).expect(200)).body).toEqual({
      org_id: orgId,
      capabilities: ['vis_recall'],
    });
    await put('vis_trace', true).expect(200);
    await put('vis_recall', false).expect(200);
    expect((await h.internal('get', url).expect(200)).body).toEqual({
      org_id: orgId,
      capabilities: ['vis_trace'],
    });
    expect((await put('base', true)).status).toBe(400);
    expect((await put('vis_trace', 'yes' as unknown as boolean)).status).toBe(400);
  });

  it('answers 404 for an unknown org', async () => {
    expect((await h.internal('get', '/internal/v1/orgs/org_unknown/capabilities')).status).toBe(404);
    const put = await h
      .internal('put', '/internal/v1/admin/orgs/org_unknown/capabilities/vis_trace')
      .send({ enabled: true });
    expect(put.status).toBe(404);
  });
});

describe('ingest keys', () => {
  it('creates a key with a DSN and serves it to core', async () => {
    const { projectId } = await seedProject(h, 'ingest');
    const created = await h
      .internal('post', '/internal/v1/admin/ingest-keys')
      .send({ project_id: projectId })
      .expect(201);
    const { key_id, secret, dsn } = created.body;
    expect(created.body.project_id).toBe(projectId);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    const url = new URL(dsn);
    expect([url.protocol, url.host, url.username, url.password, url.pathname]).toEqual([
      'http:',
      'ingest.example:8080',
      key_id,
      secret,
      `/${projectId}`,
    ]);
    const got = await h.internal('get', `/internal/v1/ingest-keys/${key_id}`).expect(200);
    expect(got.body).toEqual({ key_id, project_id: projectId, secret, active: true, allowed_origins: [] });
  });

  it('answers 404 for unknown keys and projects', async () => {
    expect((await h.internal('get', '/internal/v1/ingest-keys/key_nope')).status).toBe(404);
    expect(
      (await h.internal('post', '/internal/v1/admin/ingest-keys').send({ project_id: 'prj_nope' })).status,
    ).toBe(404);
  });
});

describe('health', () => {
  // Last on purpose: it closes the shared store.
  it('answers 503 when the store is down', async () => {
    await h.db.close();
    const res = await request(h.app).get('/healthz');
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('backend_unavailable');
  });
});

import { hashToken } from '@svc/auth';
import request from 'supertest';
import { DAY_MS, type Harness, seedProject, startHarness } from './testing/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('projects', () => {
  // First in this file on purpose: it needs a store without any org yet.
  it('puts a project without org into the first org, creating one when there is none', async () => {
    const first = await h.internal('post', '/internal/v1/admin/projects').send({ name: 'alpha' }).expect(201);
    expect(first.body).toEqual({
      project_id: expect.stringMatching(/^prj_/),
      org_id: expect.any(String),
      name: 'alpha',
    });
    await h.internal('post', '/internal/v1/admin/orgs').send({ name: 'later org' }).expect(201);
    const second = await h.internal('post', '/internal/v1/admin/projects').send({ name: 'beta' }).expect(201);
    expect(second.body.org_id).toBe(first.body.org_id);
    const caps = await h.internal('get', `/internal/v1/orgs/${first.body.org_id}/capabilities`).expect(200);
    expect(caps.body).toEqual({ org_id: first.body.org_id, capabilities: [] });
  });

  it('uses the given org, and refuses unknown orgs and invalid bodies', async () => {
    const org = await h.internal('post', '/internal/v1/admin/orgs').send({ name: 'acme' }).expect(201);
    expect(org.body).toEqual({ org_id: expect.stringMatching(/^org_/), name: 'acme' });
    const p = await h
      .internal('post', '/internal/v1/admin/projects')
      .send({ name: 'shop', org_id: org.body.org_id })
      .expect(201);
    expect(p.body.org_id).toBe(org.body.org_id);
    expect(
      (await h.internal('post', '/internal/v1/admin/projects').send({ name: 'x', org_id: 'org_no' })).status,
    ).toBe(404);
    expect((await h.internal('post', '/internal/v1/admin/projects').send({ name: '' })).status).toBe(400);
    expect(
      (await h.internal('post', '/internal/v1/admin/orgs').send({ name: 'a', extra: true })).status,
    ).toBe(400);
  });
});

describe('users', () => {
  it('creates a user with a normalized email and refuses duplicates and unknown orgs', async () => {
    const { orgId } = await seedProject(h, 'users');
    const res = await h
      .internal('post', '/internal/v1/admin/users')
      .send({ email: ' Ada@Example.COM ', password: 'correct horse', org_id: orgId })
      .expect(201);
    expect(res.body).toEqual({
      user_id: expect.stringMatching(/^usr_/),
      email: 'ada@example.com',
      org_id: orgId,
    });
    const dup = await h
      .internal('post', '/internal/v1/admin/users')
      .send({ email: 'ada@example.com', password: 'another one', org_id: orgId });
    expect(dup.status).toBe(400);
    const unknown = await h
      .internal('post', '/internal/v1/admin/users')
      .send({ email: 'bob@example.com', password: 'long enough', org_id: 'org_none' });
    expect(unknown.status).toBe(404);
    const short = await h
      .internal('post', '/internal/v1/admin/users')
      .send({ email: 'carl@example.com', password: 'short', org_id: orgId });
    expect(short.status).toBe(400);
  });

  it('stores an scrypt hash, never the password', async () => {
    const { orgId } = await seedProject(h, 'hash');
    await h
      .internal('post', '/internal/v1/admin/users')
      .send({ email: 'dora@example.com', password: 'plain text pw', org_id: orgId })
      .expect(201);
    const { rows } = await h.db.query<{ password_hash: string }>(
      'SELECT password_hash FROM users WHERE email = $1',
      ['dora@example.com'],
    );
    expect(rows[0]!.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(rows[0]!.password_hash).not.toContain('plain text pw');
  });
});

describe('tokens', () => {
  it('creates, lists and revokes tokens, storing only the SHA-256', async () => {
    const { projectId } = await seedProject(h, 'tokens');
    const a = await h
      .internal('post', '/internal/v1/admin/tokens')
      .send({ project_id: projectId, name: 'ci', days: 7 })
      .expect(201);
    const b = await h
      .internal('post', '/internal/v1/admin/tokens')
      .send({ project_id: projectId, scopes: ['mcp:read', 'api:read'] })
      .expect(201);
    expect(a.body.expires_at).toBe(new Date(h.clock.now + 7 * DAY_MS).toISOString());
    expect(b.body.scopes).toEqual(['mcp:read', 'api:read']);

    const stored = await h.db.query<Record<string, unknown>>('SELECT * FROM tokens WHERE token_id = $1', [
      a.body.token_id,
    ]);
    expect(stored.rows[0]!.token_sha256).toBe(hashToken(a.body.token));
    expect(JSON.stringify(stored.rows)).not.toContain(a.body.token);

    h.clock.now += 1000;
    await h.internal('post', `/internal/v1/admin/tokens/${a.body.token_id}/revoke`).expect(200);
    const revokedAt = new Date(h.clock.now).toISOString();
    h.clock.now += 1000;
    // Revoking again keeps the first time.
    const again = await h.internal('post', `/internal/v1/admin/tokens/${a.body.token_id}/revoke`).expect(200);
    expect(again.body.revoked_at).toBe(revokedAt);

    const list = await h.internal('get', `/internal/v1/admin/tokens?project_id=${projectId}`).expect(200);
    expect(list.body.items).toEqual([
      {
        token_id: a.body.token_id,
        name: 'ci',
        project_id: projectId,
        user_id: null,
        scopes: ['mcp:read'],
        created_at: new Date(h.clock.now - 2000).toISOString(),
        expires_at: a.body.expires_at,
        revoked_at: revokedAt,
        last_four: a.body.token.slice(-4),
      },
      expect.objectContaining({
        token_id: b.body.token_id,
        revoked_at: null,
        last_four: b.body.token.slice(-4),
      }),
    ]);
    expect(JSON.stringify(list.body)).not.toContain(a.body.token);
  });

  it('issues short-lived tokens with expires_in_seconds that introspect inactive once expired', async () => {
    const { projectId } = await seedProject(h, 'short-lived');
    const res = await h
      .internal('post', '/internal/v1/admin/tokens')
      .send({ project_id: projectId, expires_in_seconds: 30 })
      .expect(201);
    expect(res.body.expires_at).toBe(new Date(h.clock.now + 30_000).toISOString());
    const introspect = () =>
      h.internal('post', '/internal/v1/introspect').send({ token: res.body.token }).expect(200);
    expect((await introspect()).body.active).toBe(true);
    h.clock.now += 30_001;
    expect((await introspect()).body).toEqual({ active: false });
    await h
      .internal('post', '/internal/v1/admin/tokens')
      .send({ project_id: projectId, expires_in_seconds: 0 })
      .expect(400);
  });

  it('issues a project-less token that introspects with project_id null', async () => {
    const res = await h
      .internal('post', '/internal/v1/admin/tokens')
      .send({ project_id: null, scopes: ['api:read'] })
      .expect(201);
    const answer = await h
      .internal('post', '/internal/v1/introspect')
      .send({ token: res.body.token })
      .expect(200);
    expect(answer.body).toMatchObject({ active: true, project_id: null, org_id: null, scopes: ['api:read'] });
  });

  it('binds the user and its org, and refuses a user of another org', async () => {
    const { orgId, projectId } = await seedProject(h, 'with-user');
    const user = await h
      .internal('post', '/internal/v1/admin/users')
      .send({ email: 'eve@example.com', password: 'long password', org_id: orgId })
      .expect(201);
    const res = await h
      .internal('post', '/internal/v1/admin/tokens')
      .send({ project_id: projectId, user_id: user.body.user_id })
      .expect(201);
    const answer = await h
      .internal('post', '/internal/v1/introspect')
      .send({ token: res.body.token })
      .expect(200);
    expect(answer.body).toMatchObject({ user_id: user.body.user_id, org_id: orgId, project_id: projectId });
    const other = await seedProject(h, 'other-org');
    const refused = await h
      .internal('post', '/internal/v1/admin/tokens')
      .send({ project_id: other.projectId, user_id: user.body.user_id });
    expect(refused.status).toBe(400);
  });

  it('validates input and answers 404 for unknown things', async () => {
    const { projectId } = await seedProject(h, 'validation');
    for (const body of [
      { project_id: projectId, days: 0 },
      { project_id: projectId, days: 3651 },
      { name: 'x' },
    ]) {
      expect((await h.internal('post', '/internal/v1/admin/tokens').send(body)).status).toBe(400);
    }
    expect(
      (await h.internal('post', '/internal/v1/admin/tokens').send({ project_id: 'prj_no' })).status,
    ).toBe(404);
    expect((await h.internal('post', '/internal/v1/admin/tokens/tok_no/revoke')).status).toBe(404);
    expect((await h.internal('get', '/internal/v1/admin/tokens?project_id=prj_no')).status).toBe(404);
    expect((await h.internal('get', '/internal/v1/admin/tokens')).status).toBe(400);
  });
});

describe('bootstrap', () => {
  it('creates org, project and user once, then answers the same ids with created false', async () => {
    const body = { org_name: 'Boot org', project_name: 'demo', user_email: 'admin@boot.test' };
    const first = await h.internal('post', '/internal/v1/admin/bootstrap').send(body).expect(200);
    expect(first.body).toEqual({
      org_id: expect.stringMatching(/^org_/),
      project_id: expect.stringMatching(/^prj_/),
      user_id: expect.stringMatching(/^usr_/),
      created: true,
      user_password: expect.any(String),
    });
    // The generated password is the user's.
    await request(h.app)
      .post('/console/v1/login')
      .send({ email: 'admin@boot.test', password: first.body.user_password })
      .expect(200);
    const second = await h.internal('post', '/internal/v1/admin/bootstrap').send(body).expect(200);
    const { user_password: _, ...ids } = first.body;
    expect(second.body).toEqual({ ...ids, created: false });
  });

  it('uses a given password and adds a missing project to an existing setup', async () => {
    const body = {
      org_name: 'Org two',
      project_name: 'one',
      user_email: 'two@boot.test',
      user_password: 'my password',
    };
    const first = await h.internal('post', '/internal/v1/admin/bootstrap').send(body).expect(200);
    expect(first.body.user_password).toBeUndefined();
    await request(h.app)
      .post('/console/v1/login')
      .send({ email: 'two@boot.test', password: 'my password' })
      .expect(200);
    const more = await h
      .internal('post', '/internal/v1/admin/bootstrap')
      .send({ ...body, project_name: 'second' })
      .expect(200);
    expect(more.body).toMatchObject({
      org_id: first.body.org_id,
      user_id: first.body.user_id,
      created: true,
    });
    expect(more.body.project_id).not.toBe(first.body.project_id);
  });
});

import { principalFromIntrospection } from '@svc/auth';
import { UnauthorizedError } from '@svc/errors';
import request from 'supertest';
import { DEFAULT_OAUTH } from './app';
import { ASSISTANT_TOKEN_NAME, ASSISTANT_TOKEN_SECONDS } from './routes/internal/assistant-token';
import { auditEntry } from './testing/audit-entries';
import { DAY_MS, type Harness, seedProject, startHarness } from './testing/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const MINUTE = 60_000;

async function userWithProject(name: string) {
  const { orgId, projectId } = await seedProject(h, name);
  const email = `${name}@console.test`;
  const password = `password of ${name}`;
  await h.internal('post', '/internal/v1/admin/users').send({ email, password, org_id: orgId }).expect(201);
  const login = await request(h.app).post('/console/v1/login').send({ email, password }).expect(200);
  const session: string = login.body.session_token;
  const as = (method: 'get' | 'post' | 'put' | 'delete', path: string) =>
    request(h.app)[method](path).set('Authorization', `Bearer ${session}`);
  return { orgId, projectId, email, password, session, as, login: login.body };
}

const introspect = async (token: string) =>
  (await h.internal('post', '/internal/v1/introspect').send({ token }).expect(200)).body;

describe('login and sessions', () => {
  it('issues a 12-hour session for the right password only', async () => {
    const u = await userWithProject('login');
    expect(u.login).toEqual({
      session_token: expect.stringMatching(/^svc_ses_/),
      expires_at: new Date(h.clock.now + 12 * 60 * MINUTE).toISOString(),
    });
    const wrong = await request(h.app)
      .post('/console/v1/login')
      .send({ email: u.email, password: 'wrong password' });
    expect(wrong.status).toBe(401);
    const unknown = await request(h.app)
      .post('/console/v1/login')
      .send({ email: 'no@console.test', password: 'x' });
    expect(unknown.status).toBe(401);
    expect((await request(h.app).post('/console/v1/login').send({ email: u.email })).status).toBe(400);
  });

  it('refuses missing, unknown and expired sessions', async () => {
    const u = await userWithProject('sessions');
    const path = `/console/v1/projects/${u.projectId}/mcp-tokens`;
    expect((await request(h.app).get(path)).status).toBe(401);
    expect((await request(h.app).get(path).set('Authorization', 'Bearer svc_ses_nope')).status).toBe(401);
    expect((await request(h.app).get(path).set('Authorization', `Basic ${u.session}`)).status).toBe(401);
    await u.as('get', path).expect(200);
    const start = h.clock.now;
    try {
      h.clock.now = start + 12 * 60 * MINUTE;
      expect((await u.as('get', path)).status).toBe(401);
    } finally {
      h.clock.now = start;
    }
  });
});

describe('session matrix', () => {
  // Every route behind the session: without a live one, 401 before anything else is looked at.
  const routes: [method: 'get' | 'post' | 'put' | 'delete', path: string][] = [
    ['post', '/console/v1/step-up'],
    ['post', '/console/v1/projects/prj_x/mcp-tokens'],
    ['get', '/console/v1/projects/prj_x/mcp-tokens'],
    ['delete', '/console/v1/mcp-tokens/tok_x'],
    ['post', '/console/v1/api-tokens'],
    ['post', '/console/v1/projects/prj_x/ingest-keys'],
    ['put', '/console/v1/projects/prj_x/ingest-keys/key_x/allowed-origins'],
    ['get', '/console/v1/me'],
    ['post', '/console/v1/logout'],
    ['get', '/console/v1/projects/prj_x/audit'],
    ['get', '/console/v1/projects/prj_x/audit/verify'],
    ['post', '/console/v1/names'],
    ['post', '/console/v1/projects/prj_x/ingest-keys/key_x/revoke'],
  ];

  it.each(routes)('%s %s refuses a missing or unknown session with 401', async (method, path) => {
    for (const authorization of [undefined, 'Bearer svc_ses_nope', 'Basic x']) {
      const req = request(h.app)[method](path);
      const res = await (authorization ? req.set('Authorization', authorization) : req).send({});
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
  });
});

describe('MCP tokens', () => {
  it('requires a step-up within 5 minutes to create a token', async () => {
    const u = await userWithProject('stepup');
    const path = `/console/v1/projects/${u.projectId}/mcp-tokens`;
    const before = await u.as('post', path).send({ name: 'laptop' });
    expect(before.status).toBe(403);
    expect(before.body.error).toBe('step_up_required');

    expect((await u.as('post', '/console/v1/step-up').send({ password: 'not it' })).status).toBe(401);
    const stepUp = await u.as('post', '/console/v1/step-up').send({ password: u.password }).expect(200);
    const start = h.clock.now;
    expect(stepUp.body).toEqual({ step_up_until: new Date(start + 5 * MINUTE).toISOString() });

    try {
      h.clock.now = start + 5 * MINUTE - 1;
      const created = await u.as('post', path).send({ name: 'laptop' }).expect(201);
      expect(created.body).toEqual({
        token: expect.stringMatching(/^svc_pat_/),
        token_id: expect.stringMatching(/^tok_/),
        scope: 'mcp:read',
        expires_at: new Date(h.clock.now + 90 * DAY_MS).toISOString(),
      });
      const answer = await introspect(created.body.token);
      expect(answer).toMatchObject({
        active: true,
        project_id: u.projectId,
        org_id: u.orgId,
        scopes: ['mcp:read'],
      });
      expect(answer.user_id).toMatch(/^usr_/);

      h.clock.now = start + 5 * MINUTE;
      const late = await u.as('post', path).send({ name: 'too late' });
      expect(late.status).toBe(403);
      expect(late.body.error).toBe('step_up_required');
    } finally {
      h.clock.now = start;
    }
  });

  it('lists the project MCP tokens and revokes one with immediate effect', async () => {
    const u = await userWithProject('revoke');
    await u.as('post', '/console/v1/step-up').send({ password: u.password }).expect(200);
    const path = `/console/v1/projects/${u.projectId}/mcp-tokens`;
    const one = (await u.as('post', path).send({ name: 'one', days: 30 }).expect(201)).body;
    const two = (await u.as('post', path).send({ name: 'two' }).expect(201)).body;
    expect(one.expires_at).toBe(new Date(h.clock.now + 30 * DAY_MS).toISOString());
    // An admin-made api token of the same project is not an MCP token.
    await h
      .internal('post', '/internal/v1/admin/tokens')
      .send({ project_id: u.projectId, scopes: ['api:read'] })
      .expect(201);

    const list = (await u.as('get', path).expect(200)).body;
    expect(list.items.map((t: { name: string }) => t.name)).toEqual(['one', 'two']);
    expect(list.items[0]).toMatchObject({ token_id: one.token_id, scopes: ['mcp:read'], revoked_at: null });
    expect(JSON.stringify(list)).not.toContain(one.token);

    const revoked = await u.as('delete', `/console/v1/mcp-tokens/${one.token_id}`).expect(200);
    expect(revoked.body).toEqual({ token_id: one.token_id, revoked_at: new Date(h.clock.now).toISOString() });
    expect(await introspect(one.token)).toEqual({ active: false });
    expect((await introspect(two.token)).active).toBe(true);
  });

  it('hides other orgs projects and tokens', async () => {
    const a = await userWithProject('org-a');
    const b = await userWithProject('org-b');
    await b.as('post', '/console/v1/step-up').send({ password: b.password }).expect(200);
    const bToken = (
      await b.as('post', `/console/v1/projects/${b.projectId}/mcp-tokens`).send({ name: 'b' }).expect(201)
    ).body;
    await a.as('post', '/console/v1/step-up').send({ password: a.password }).expect(200);
    expect((await a.as('get', `/console/v1/projects/${b.projectId}/mcp-tokens`)).status).toBe(404);
    expect(
      (await a.as('post', `/console/v1/projects/${b.projectId}/mcp-tokens`).send({ name: 'x' })).status,
    ).toBe(404);
    expect((await a.as('post', `/console/v1/projects/${b.projectId}/ingest-keys`)).status).toBe(404);
    const bKey = (await b.as('post', `/console/v1/projects/${b.projectId}/ingest-keys`).expect(201)).body;
    const bOrigins = `/console/v1/projects/${b.projectId}/ingest-keys/${bKey.key_id}/allowed-origins`;
    const aOrigins = `/console/v1/projects/${a.projectId}/ingest-keys/${bKey.key_id}/allowed-origins`;
    for (const path of [bOrigins, aOrigins]) {
      const res = await a.as('put', path).send({ allowed_origins: ['https://a.example'] });
      expect(res.status).toBe(404);
    }
    expect((await a.as('delete', `/console/v1/mcp-tokens/${bToken.token_id}`)).status).toBe(404);
    expect((await introspect(bToken.token)).active).toBe(true);
  });
});

describe('general API tokens', () => {
  it('issues an api:read token without project, which MCP refuses', async () => {
    const u = await userWithProject('api');
    expect((await u.as('post', '/console/v1/api-tokens').send({ name: 'reporting' })).status).toBe(403);
    await u.as('post', '/console/v1/step-up').send({ password: u.password }).expect(200);
    const created = await u.as('post', '/console/v1/api-tokens').send({ name: 'reporting' }).expect(201);
    expect(created.body).toMatchObject({ scope: 'api:read', token: expect.stringMatching(/^svc_pat_/) });
    const answer = await introspect(created.body.token);
    expect(answer).toMatchObject({ active: true, project_id: null, org_id: u.orgId, scopes: ['api:read'] });
    expect(() => principalFromIntrospection(answer, h.clock.now)).toThrow(UnauthorizedError);
  });
});

describe('ingest keys', () => {
  it('creates a project ingest key from the console', async () => {
    const u = await userWithProject('console-ingest');
    const res = await u.as('post', `/console/v1/projects/${u.projectId}/ingest-keys`).expect(201);
    expect(res.body).toMatchObject({ project_id: u.projectId, key_id: expect.stringMatching(/^key_/) });
    const got = await h.internal('get', `/internal/v1/ingest-keys/${res.body.key_id}`).expect(200);
    expect(got.body.secret).toBe(res.body.secret);
  });

  it("revokes a key of the project, from the console or the admin API; another project's is 404", async () => {
    const u = await userWithProject('console-ingest-revoke');
    const other = await userWithProject('console-ingest-revoke-other');
    const served = async (keyId: string) =>
      (await h.internal('get', `/internal/v1/ingest-keys/${keyId}`).expect(200)).body.active;
    const mine = (await u.as('post', `/console/v1/projects/${u.projectId}/ingest-keys`).expect(201)).body;
    const theirs = (await other.as('post', `/console/v1/projects/${other.projectId}/ingest-keys`).expect(201))
      .body;
    for (const path of [
      `/console/v1/projects/${u.projectId}/ingest-keys/${theirs.key_id}/revoke`,
      `/console/v1/projects/${other.projectId}/ingest-keys/${theirs.key_id}/revoke`,
    ]) {
      expect((await u.as('post', path)).status).toBe(404);
    }
    expect(await served(theirs.key_id)).toBe(true);

    const revoked = await u
      .as('post', `/console/v1/projects/${u.projectId}/ingest-keys/${mine.key_id}/revoke`)
      .expect(200);
    expect(revoked.body).toEqual({
      key_id: mine.key_id,
      project_id: u.projectId,
      active: false,
      allowed_origins: [],
    });
    expect(await served(mine.key_id)).toBe(false);
    expect(JSON.stringify(revoked.body)).not.toContain(mine.secret);
    expect(h.logs.some((l) => l.obj.event === 'ingest_key_revoked' && l.obj.key_id === mine.key_id)).toBe(
      true,
    );

    const admin = await h
      .internal('post', `/internal/v1/admin/ingest-keys/${theirs.key_id}/revoke`)
      .expect(200);
    expect(admin.body.active).toBe(false);
    expect(await served(theirs.key_id)).toBe(false);
    expect((await h.internal('post', '/internal/v1/admin/ingest-keys/key_nope/revoke')).status).toBe(404);
  });
});

describe('console session introspection (for services with a console side)', () => {
  const introspectSession = async (session_token: string, project_id: string) =>
    (
      await h
        .internal('post', '/internal/v1/console-sessions/introspect')
        .send({ session_token, project_id })
        .expect(200)
    ).body;

  it("names the session's user and org, the org's capabilities and whether the project is the org's", async () => {
    const u = await userWithProject('sessintro');
    const other = await userWithProject('sessintro_other');
    await h
      .internal('put', `/internal/v1/admin/orgs/${u.orgId}/capabilities/vis_recall`)
      .send({ enabled: true })
      .expect(200);
    const mine = await introspectSession(u.session, u.projectId);
    expect(mine).toMatchObject({
      active: true,
      org_id: u.orgId,
      project_in_org: true,
      capabilities: ['vis_recall'],
      step_up_until: null,
    });
    expect(typeof mine.user_id).toBe('string');
    expect((await introspectSession(u.session, other.projectId)).project_in_org).toBe(false);
    expect((await introspectSession(u.session, 'prj_unknown')).project_in_org).toBe(false);
  });

  it('answers inactive for an unknown session and for an expired one', async () => {
    const u = await userWithProject('sessintro_expiry');
    expect(await introspectSession('svc_ses_unknown', u.projectId)).toEqual({ active: false });
    const saved = h.clock.now;
    h.clock.now += DAY_MS;
    try {
      expect(await introspectSession(u.session, u.projectId)).toEqual({ active: false });
    } finally {
      h.clock.now = saved;
    }
  });
});

describe('the web console service', () => {
  const toolToken = (session: string, projectId: string) =>
    h
      .internal('post', '/internal/v1/console-sessions/tool-token')
      .send({ session_token: session, project_id: projectId });

  it("names the user, the org and the org's projects", async () => {
    const u = await userWithProject('me');
    const me = (await u.as('get', '/console/v1/me').expect(200)).body;
    expect(me).toMatchObject({
      email: u.email,
      org_id: u.orgId,
      projects: [{ project_id: u.projectId, name: expect.any(String) }],
      step_up_until: null,
    });
  });

  it('gives the console service a session-long MCP token of the user, never listed, revoked at logout', async () => {
    const u = await userWithProject('tool-token');
    const issued = (await toolToken(u.session, u.projectId).expect(201)).body;
    expect(issued).toEqual({
      token: expect.stringMatching(/^svc_pat_/),
      token_id: expect.any(String),
      expires_at: u.login.expires_at,
    });
    expect(await introspect(issued.token)).toMatchObject({
      active: true,
      project_id: u.projectId,
      scopes: ['mcp:read'],
    });
    const listed = (await u.as('get', `/console/v1/projects/${u.projectId}/mcp-tokens`).expect(200)).body;
    expect(listed.items).toEqual([]);

    await u.as('post', '/console/v1/logout').expect(204);
    expect(await introspect(issued.token)).toEqual({ active: false });
    expect((await u.as('get', '/console/v1/me')).status).toBe(401);
    expect((await toolToken(u.session, u.projectId)).status).toBe(404);
  });

  it("marks the console's own tokens in introspection, and only them (their calls are audited as the console)", async () => {
    const u = await userWithProject('tool-token-marked');
    const issued = (await toolToken(u.session, u.projectId).expect(201)).body;
    const answer = await introspect(issued.token);
    expect(answer).toMatchObject({ active: true, token_id: issued.token_id, console: true });
    // Still an ordinary MCP principal for the gateway.
    expect(principalFromIntrospection(answer, h.clock.now).tokenId).toBe(issued.token_id);
    await u.as('post', '/console/v1/step-up').send({ password: u.password }).expect(200);
    const own = (
      await u.as('post', `/console/v1/projects/${u.projectId}/mcp-tokens`).send({ name: 'mine' }).expect(201)
    ).body;
    const admin = (
      await h.internal('post', '/internal/v1/admin/tokens').send({ project_id: u.projectId }).expect(201)
    ).body;
    for (const token of [own.token, admin.token]) {
      const plain = await introspect(token);
      expect(plain.active).toBe(true);
      expect(plain).not.toHaveProperty('console');
    }
  });

  it('refuses a tool token for another org, an unknown session, or without the internal secret', async () => {
    const a = await userWithProject('tool-token-a');
    const b = await userWithProject('tool-token-b');
    expect((await toolToken(a.session, b.projectId)).status).toBe(404);
    expect((await toolToken('svc_ses_nope', a.projectId)).status).toBe(404);
    const noSecret = await request(h.app)
      .post('/internal/v1/console-sessions/tool-token')
      .send({ session_token: a.session, project_id: a.projectId });
    expect(noSecret.status).toBe(401);
  });

  it('gives the assistant a read-only token of minutes for the gateway resource, named, never listed, revoked at logout', async () => {
    const u = await userWithProject('assistant-token');
    const mint = (session: string, projectId: string) =>
      h
        .internal('post', '/internal/v1/console-sessions/assistant-token')
        .send({ session_token: session, project_id: projectId });
    const issued = (await mint(u.session, u.projectId).expect(201)).body;
    expect(Date.parse(issued.expires_at) - h.clock.now).toBe(ASSISTANT_TOKEN_SECONDS * 1000);
    const answer = await introspect(issued.token);
    expect(answer).toMatchObject({
      active: true,
      project_id: u.projectId,
      scopes: ['mcp:read'],
      audience: DEFAULT_OAUTH.resource,
    });
    expect(principalFromIntrospection(answer, h.clock.now).projectId).toBe(u.projectId);
    const names = (
      await u
        .as('post', '/console/v1/names')
        .send({ user_ids: [], token_ids: [issued.token_id] })
        .expect(200)
    ).body;
    expect(names.tokens).toEqual([{ token_id: issued.token_id, name: ASSISTANT_TOKEN_NAME }]);
    const listed = (await u.as('get', `/console/v1/projects/${u.projectId}/mcp-tokens`).expect(200)).body;
    expect(listed.items).toEqual([]);
    const other = await userWithProject('assistant-token-other');
    expect((await mint(u.session, other.projectId)).status).toBe(404);
    const noSecret = await request(h.app)
      .post('/internal/v1/console-sessions/assistant-token')
      .send({ session_token: u.session, project_id: u.projectId });
    expect(noSecret.status).toBe(401);
    await u.as('post', '/console/v1/logout').expect(204);
    expect(await introspect(issued.token)).toEqual({ active: false });
    expect((await mint(u.session, u.projectId)).status).toBe(404);
  });

  it("shows each MCP token's last audited use", async () => {
    const u = await userWithProject('last-used');
    await u.as('post', '/console/v1/step-up').send({ password: u.password }).expect(200);
    const path = `/console/v1/projects/${u.projectId}/mcp-tokens`;
    const used = (await u.as('post', path).send({ name: 'used' }).expect(201)).body;
    const idle = (await u.as('post', path).send({ name: 'idle' }).expect(201)).body;
    const records = [0, 1, 2].map((i) =>
      auditEntry(u.projectId, i, { token_id: used.token_id, org_id: u.orgId, user_id: null }),
    );
    await h.internal('post', '/internal/v1/audit').send({ records }).expect(201);
    const items = (await u.as('get', path).expect(200)).body.items;
    expect(items.map((t: { name: string; last_used_at: string | null }) => [t.name, t.last_used_at])).toEqual(
      [
        ['used', records[2]!.at],
        ['idle', null],
      ],
    );
    expect(idle.token_id).toBeDefined();
  });

  it("pages the project's audit trail newest first and verifies its chain; other orgs get 404", async () => {
    const u = await userWithProject('audit-page');
    const other = await userWithProject('audit-page-other');
    const records = [0, 1, 2, 3, 4].map((i) => auditEntry(u.projectId, i, { org_id: u.orgId }));
    await h.internal('post', '/internal/v1/audit').send({ records }).expect(201);
    const base = `/console/v1/projects/${u.projectId}/audit`;
    const first = (await u.as('get', `${base}?limit=2`).expect(200)).body;
    expect(first.items.map((r: { seq: number }) => r.seq)).toEqual([5, 4]);
    expect(first.has_more).toBe(true);
    const next = (await u.as('get', `${base}?limit=2&before_seq=4`).expect(200)).body;
    expect(next.items.map((r: { seq: number }) => r.seq)).toEqual([3, 2]);
    expect(next.items[0]).toMatchObject({ tool: records[2]!.tool, request_id: records[2]!.request_id });
    const verified = (await u.as('get', `${base}/verify`).expect(200)).body;
    expect(verified).toMatchObject({ ok: true });
    expect((await other.as('get', base)).status).toBe(404);
    expect((await other.as('get', `${base}/verify`)).status).toBe(404);
    expect((await u.as('get', `${base}?limit=0`)).status).toBe(400);
  });

  /** A person with an MCP token of their own and the console's token of their session. */
  async function callers(name: string) {
    const u = await userWithProject(name);
    const me = (await u.as('get', '/console/v1/me').expect(200)).body as { user_id: string };
    await u.as('post', '/console/v1/step-up').send({ password: u.password }).expect(200);
    const laptop = (
      await u
        .as('post', `/console/v1/projects/${u.projectId}/mcp-tokens`)
        .send({ name: 'laptop' })
        .expect(201)
    ).body as { token_id: string };
    const consoleToken = (await toolToken(u.session, u.projectId).expect(201)).body as { token_id: string };
    return { ...u, userId: me.user_id, laptop: laptop.token_id, consoleToken: consoleToken.token_id };
  }

  it('names who called on the audit page: the email and the token name next to the ids, never another org', async () => {
    const u = await callers('audit-names');
    const other = await callers('audit-names-other');
    const who: [string | null, string | null][] = [
      [u.userId, u.laptop],
      [u.userId, u.consoleToken],
      [other.userId, other.laptop],
      [null, null],
      ['usr_gone', 'tok_gone'],
    ];
    const records = who.map(([user_id, token_id], i) =>
      auditEntry(u.projectId, i, { user_id, token_id, org_id: u.orgId }),
    );
    await h.internal('post', '/internal/v1/audit').send({ records }).expect(201);
    const page = (await u.as('get', `/console/v1/projects/${u.projectId}/audit`).expect(200)).body;
    const named = (id: string | null, names: Record<string, string>) => (id ? (names[id] ?? null) : null);
    const emails = { [u.userId]: u.email };
    const tokenNames = { [u.laptop]: 'laptop', [u.consoleToken]: 'web console' };
    expect(
      page.items.map((r: Record<string, unknown>) => [r.user_id, r.user_email, r.token_id, r.token_name]),
    ).toEqual(
      [...who].reverse().map(([user, token]) => [user, named(user, emails), token, named(token, tokenNames)]),
    );
    // The names are looked up, not stored: the chain is what was written.
    expect(
      (await u.as('get', `/console/v1/projects/${u.projectId}/audit/verify`).expect(200)).body,
    ).toMatchObject({ ok: true, checked: who.length });
  });

  it("names the people and tokens of the session's org it is asked about (one lookup for a page of ids)", async () => {
    const u = await callers('names-lookup');
    const other = await callers('names-lookup-other');
    const answer = (
      await u
        .as('post', '/console/v1/names')
        .send({
          user_ids: [u.userId, other.userId, 'usr_unknown', u.userId],
          token_ids: [u.laptop, u.consoleToken, other.laptop, 'tok_unknown'],
        })
        .expect(200)
    ).body;
    expect(answer).toEqual({
      users: [{ user_id: u.userId, email: u.email }],
      tokens: [
        { token_id: u.laptop, name: 'laptop' },
        { token_id: u.consoleToken, name: 'web console' },
      ].sort((a, b) => a.token_id.localeCompare(b.token_id)),
    });
    expect((await u.as('post', '/console/v1/names').send({ user_ids: [], token_ids: [] })).body).toEqual({
      users: [],
      tokens: [],
    });
    const many = Array.from({ length: 1001 }, (_, i) => `usr_${i}`);
    expect((await u.as('post', '/console/v1/names').send({ user_ids: many, token_ids: [] })).status).toBe(
      400,
    );
    expect((await u.as('post', '/console/v1/names').send({ user_ids: 'usr_1' })).status).toBe(400);
  });
});

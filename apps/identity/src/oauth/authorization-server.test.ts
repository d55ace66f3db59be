import { principalFromIntrospection } from '@svc/auth';
import request from 'supertest';
import {
  bindBrowser,
  browse,
  browseToExit,
  CONSENT_BROWSER,
  CONSOLE,
  CookieJar,
  consoleBrowser,
  type OAuthHarness,
  pkce,
  RESOURCE,
  registerClient,
  signedInPerson,
  startOAuthHarness,
  token,
} from '../testing/oauth-client';

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await h.close();
});

const REDIRECT = 'http://127.0.0.1:53682/callback';
const MINUTE = 60_000;

const introspect = async (value: string) =>
  (await h.internal('post', '/internal/v1/introspect').send({ token: value }).expect(200)).body;

async function newClient(name = 'Test MCP client', redirect = REDIRECT) {
  const reg = await registerClient(h.issuer, { client_name: name, redirect_uris: [redirect] });
  expect(reg.status).toBe(201);
  return reg.body.client_id as string;
}

interface Start {
  clientId: string;
  redirect?: string;
  resource?: string | null;
  state?: string;
}

/** An authorization request as an MCP client sends it; answers where the browser lands first. */
async function authorize(start: Start, jar = new CookieJar()) {
  const { verifier, challenge } = pkce();
  const state = start.state ?? `state-${Math.random()}`;
  const url = new URL(`${h.issuer}/auth`);
  url.search = new URLSearchParams({
    client_id: start.clientId,
    redirect_uri: start.redirect ?? REDIRECT,
    response_type: 'code',
    scope: 'mcp:read',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(start.resource === null ? {} : { resource: start.resource ?? RESOURCE }),
  }).toString();
  const landed = await browseToExit(url.href, jar, h.issuer);
  return { landed, jar, verifier, state };
}

const uidOf = (location: URL | undefined) => {
  expect(location?.href.startsWith(`${CONSOLE}/oauth/consent/`)).toBe(true);
  return location!.pathname.split('/').pop()!;
};

/** The browser that started `uid` binds itself, as the console's consent page makes it do; its proof. */
async function bound(uid: string, jar: CookieJar): Promise<string> {
  const proof = consoleBrowser().proof(uid);
  const bind = await bindBrowser(h.issuer, uid, jar, proof);
  expect(bind.status).toBe(303);
  expect(bind.location?.href).toBe(`${CONSOLE}/oauth/consent/${uid}`);
  return proof;
}

/** Sign-in, step-up and approval on the consent page; answers the client's redirect. */
async function consent(
  person: Awaited<ReturnType<typeof signedInPerson>>,
  uid: string,
  jar: CookieJar,
  projectId = person.projectId,
) {
  const proof = await bound(uid, jar);
  await person.as('post', '/console/v1/step-up').send({ password: person.password }).expect(200);
  const approved = await person
    .as('post', `/console/v1/oauth/interactions/${uid}/approve`)
    .set(CONSENT_BROWSER, proof)
    .send({ project_id: projectId })
    .expect(200);
  return browseToExit(approved.body.redirect_to, jar, h.issuer);
}

async function fullFlow(name: string) {
  const person = await signedInPerson(h, name);
  const clientId = await newClient(`client of ${name}`);
  const { landed, jar, verifier, state } = await authorize({ clientId });
  const uid = uidOf(landed.location);
  const back = await consent(person, uid, jar);
  const code = back.location!.searchParams.get('code')!;
  const issued = await token(h.issuer, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: RESOURCE,
  });
  return { person, clientId, uid, back, state, code, verifier, issued };
}

describe('metadata', () => {
  it('publishes RFC 8414 metadata at the path-aware address: code + PKCE S256, iss, DCR, CIMD', async () => {
    const path = `/.well-known/oauth-authorization-server${new URL(h.issuer).pathname}`;
    const res = await fetch(new URL(path, h.issuer));
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: h.issuer,
      authorization_endpoint: `${h.issuer}/auth`,
      token_endpoint: `${h.issuer}/token`,
      registration_endpoint: `${h.issuer}/reg`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    // Only what it issues: no openid (no ID tokens), or clients that ask for every scope listed
    // (the MCP Inspector) are refused with invalid_scope.
    expect(meta.scopes_supported).toEqual(['mcp:read']);
    expect(meta.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token']),
    );
    // The same document under the issuer, where clients that append the well-known path look.
    const underIssuer = await fetch(`${h.issuer}/.well-known/oauth-authorization-server`);
    expect(await underIssuer.json()).toEqual(meta);
  });
});

describe('browser clients', () => {
  it('may register from a page of any origin (the Inspector registers from its web UI), without credentials', async () => {
    const origin = 'http://localhost:6274';
    const preflight = await fetch(`${h.issuer}/reg`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        // The Inspector sends its MCP protocol version on every request, registration included.
        'access-control-request-headers': 'content-type,mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type,mcp-protocol-version');
    const registered = await fetch(`${h.issuer}/reg`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Inspector',
        redirect_uris: [`${origin}/oauth/callback`],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    expect(registered.headers.get('access-control-allow-origin')).toBe('*');
    expect(registered.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it.each([
    ['the path-aware address', () => `/.well-known/oauth-authorization-server${new URL(h.issuer).pathname}`],
    [
      "the issuer's own address",
      () => `${new URL(h.issuer).pathname}/.well-known/oauth-authorization-server`,
    ],
  ])('may read the metadata at %s from any page, with the MCP protocol version header', async (_at, path) => {
    const origin = 'http://localhost:6274';
    const url = new URL(path(), h.issuer);
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBeTruthy();
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    const res = await fetch(url, { headers: { origin, 'mcp-protocol-version': '2025-11-25' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeTruthy();
  });
});

describe('authorization code flow', () => {
  it('issues a short-lived mcp:read token bound to the chosen project, introspected like a pasted one', async () => {
    const { person, back, state, issued, clientId } = await fullFlow('flow');
    // RFC 9207: the issuer in the response; the state comes back unchanged for the client to compare.
    expect(back.location!.origin + back.location!.pathname).toBe(REDIRECT);
    expect(back.location!.searchParams.get('iss')).toBe(h.issuer);
    expect(back.location!.searchParams.get('state')).toBe(state);
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ token_type: 'Bearer', scope: 'mcp:read', expires_in: 600 });
    expect(typeof issued.body.refresh_token).toBe('string');
    const answer = await introspect(issued.body.access_token as string);
    expect(answer).toMatchObject({
      active: true,
      project_id: person.projectId,
      org_id: person.orgId,
      scopes: ['mcp:read'],
      token_id: expect.stringMatching(/^tok_/),
      // The gateway refuses it unless this is its own resource URL.
      audience: RESOURCE,
    });
    const principal = principalFromIntrospection(answer, h.clock.now);
    expect(principal.projectId).toBe(person.projectId);
    // Listed on the /mcp page beside pasted tokens, under the client's name.
    const listed = (await person.as('get', `/console/v1/projects/${person.projectId}/mcp-tokens`).expect(200))
      .body;
    expect(listed.items).toEqual([
      expect.objectContaining({
        token_id: answer.token_id,
        name: `client of flow`,
        scopes: ['mcp:read'],
        revoked_at: null,
        oauth_client_id: clientId,
      }),
    ]);
    expect(h.logs.map((l) => l.obj.event)).toEqual(
      expect.arrayContaining([
        'oauth_client_registered',
        'oauth_consent_approved',
        'oauth_authorized',
        'oauth_token_issued',
      ]),
    );
  });

  it('signing out of the console leaves the sign-in working: it belongs to the client', async () => {
    const { person, issued } = await fullFlow('sign-out');
    await person.as('post', '/console/v1/logout').expect(204);
    expect(await introspect(issued.body.access_token as string)).toMatchObject({
      active: true,
      project_id: person.projectId,
    });
  });

  it('revoking on the /mcp page refuses the access token and its refresh token at once', async () => {
    const { person, issued, clientId } = await fullFlow('revoke');
    const access = issued.body.access_token as string;
    const { token_id } = await introspect(access);
    await person.as('delete', `/console/v1/mcp-tokens/${token_id}`).expect(200);
    expect(await introspect(access)).toEqual({ active: false });
    const refreshed = await token(h.issuer, {
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('rotates refresh tokens; a reused one revokes the whole family', async () => {
    const { issued, clientId, person } = await fullFlow('rotate');
    const first = issued.body.refresh_token as string;
    const second = await token(h.issuer, {
      grant_type: 'refresh_token',
      refresh_token: first,
      client_id: clientId,
    });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first);
    const { token_id } = await introspect(second.body.access_token as string);
    expect((await introspect(second.body.access_token as string)).project_id).toBe(person.projectId);
    // The first refresh token again: someone else has a copy. Everything of the grant ends.
    const reuse = await token(h.issuer, {
      grant_type: 'refresh_token',
      refresh_token: first,
      client_id: clientId,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    const after = await token(h.issuer, {
      grant_type: 'refresh_token',
      refresh_token: second.body.refresh_token as string,
      client_id: clientId,
    });
    expect(after.body.error).toBe('invalid_grant');
    expect(await introspect(second.body.access_token as string)).toEqual({ active: false });
    expect(await introspect(issued.body.access_token as string)).toEqual({ active: false });
    expect(h.logs.some((l) => l.obj.event === 'oauth_refresh_token_reused')).toBe(true);
    // The row shows revoked on the /mcp page (revoked in the background of the token request).
    await eventually(async () => {
      const listed = (await person.as('get', `/console/v1/projects/${person.projectId}/mcp-tokens`)).body;
      return listed.items.find((t: { token_id: string }) => t.token_id === token_id)?.revoked_at !== null;
    });
  });
});

describe('negative matrix: refused, nothing issued', () => {
  it('a wrong PKCE verifier', async () => {
    const person = await signedInPerson(h, 'pkce');
    const clientId = await newClient();
    const { landed, jar } = await authorize({ clientId });
    const back = await consent(person, uidOf(landed.location), jar);
    const wrong = await token(h.issuer, {
      grant_type: 'authorization_code',
      code: back.location!.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: pkce().verifier,
      resource: RESOURCE,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    expect(wrong.body.access_token).toBeUndefined();
  });

  it('no PKCE at all, or the plain method', async () => {
    const clientId = await newClient();
    const withoutS256: Record<string, string>[] = [
      {},
      { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' },
    ];
    for (const extra of withoutS256) {
      const url = new URL(`${h.issuer}/auth`);
      url.search = new URLSearchParams({
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'mcp:read',
        state: 's',
        resource: RESOURCE,
        ...extra,
      }).toString();
      const landed = await browseToExit(url.href, new CookieJar(), h.issuer);
      expect(landed.location?.href.startsWith(REDIRECT)).toBe(true);
      expect(landed.location!.searchParams.get('error')).toBe('invalid_request');
      expect(landed.location!.searchParams.get('code')).toBeNull();
    }
  });

  it('a missing or wrong resource at authorization, a wrong one at the token endpoint', async () => {
    const clientId = await newClient();
    for (const resource of [null, 'http://elsewhere.test/mcp']) {
      const { landed } = await authorize({ clientId, resource });
      expect(landed.location?.href.startsWith(REDIRECT)).toBe(true);
      expect(landed.location!.searchParams.get('error')).toBe('invalid_target');
      expect(landed.location!.searchParams.get('iss')).toBe(h.issuer);
    }
    const person = await signedInPerson(h, 'resource');
    const { landed, jar, verifier } = await authorize({ clientId });
    const back = await consent(person, uidOf(landed.location), jar);
    const other = await token(h.issuer, {
      grant_type: 'authorization_code',
      code: back.location!.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: 'http://elsewhere.test/mcp',
    });
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('invalid_target');
  });

  it('a redirect URI that was not registered: an error page, never a redirect', async () => {
    const clientId = await newClient();
    for (const redirect of [
      'http://127.0.0.1:53682/other',
      'http://127.0.0.1:53683/callback',
      'https://attacker.test/cb',
    ]) {
      const { landed } = await authorize({ clientId, redirect });
      expect(landed.status).toBe(400);
      expect(landed.location).toBeUndefined();
      expect(landed.body).toContain('redirect_uri');
    }
  });

  it('native clients: any loopback port (RFC 8252), nothing else', async () => {
    const reg = await registerClient(h.issuer, {
      client_name: 'native',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    expect(reg.status).toBe(201);
    const clientId = reg.body.client_id as string;
    const { landed } = await authorize({ clientId, redirect: 'http://127.0.0.1:61234/callback' });
    uidOf(landed.location);
    const wrongPath = await authorize({ clientId, redirect: 'http://127.0.0.1:61234/other' });
    expect(wrongPath.landed.status).toBe(400);
  });

  it('a reused code: refused, and the tokens it gave are revoked', async () => {
    const { clientId, code, verifier, issued } = await fullFlow('code-reuse');
    const again = await token(h.issuer, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: RESOURCE,
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect(await introspect(issued.body.access_token as string)).toEqual({ active: false });
  });

  it('a project of another org, step-up missing or expired, an unknown interaction: no grant', async () => {
    const person = await signedInPerson(h, 'consent');
    const stranger = await signedInPerson(h, 'stranger');
    const clientId = await newClient();
    const { landed, jar } = await authorize({ clientId });
    const uid = uidOf(landed.location);
    const proof = await bound(uid, jar);
    const approve = (projectId: string) =>
      person
        .as('post', `/console/v1/oauth/interactions/${uid}/approve`)
        .set(CONSENT_BROWSER, proof)
        .send({ project_id: projectId });
    expect((await approve(person.projectId)).body.error).toBe('step_up_required');
    await person.as('post', '/console/v1/step-up').send({ password: person.password }).expect(200);
    expect((await approve(stranger.projectId)).status).toBe(404);
    const start = h.clock.now;
    try {
      h.clock.now = start + 5 * MINUTE + 1;
      const expired = await approve(person.projectId);
      expect(expired.status).toBe(403);
      expect(expired.body.error).toBe('step_up_required');
    } finally {
      h.clock.now = start;
    }
    expect((await person.as('get', '/console/v1/oauth/interactions/nope').send()).status).toBe(404);
    expect(
      (
        await person
          .as('post', '/console/v1/oauth/interactions/nope/approve')
          .send({ project_id: person.projectId })
      ).status,
    ).toBe(404);
    const listed = (await person.as('get', `/console/v1/projects/${person.projectId}/mcp-tokens`).expect(200))
      .body;
    expect(listed.items).toEqual([]);
  });

  it('denied: access_denied at the client, and the interaction cannot be approved after', async () => {
    const person = await signedInPerson(h, 'deny');
    const clientId = await newClient();
    const { landed, jar, state } = await authorize({ clientId });
    const uid = uidOf(landed.location);
    const proof = await bound(uid, jar);
    const details = (
      await person.as('get', `/console/v1/oauth/interactions/${uid}`).set(CONSENT_BROWSER, proof).expect(200)
    ).body;
    expect(details).toMatchObject({
      client_id: clientId,
      client_name: 'Test MCP client',
      redirect_host: '127.0.0.1:53682',
      redirect_local: true,
      resource: RESOURCE,
      scope: 'mcp:read',
    });
    const denied = await person
      .as('post', `/console/v1/oauth/interactions/${uid}/deny`)
      .set(CONSENT_BROWSER, proof)
      .expect(200);
    const back = await browseToExit(denied.body.redirect_to, jar, h.issuer);
    expect(back.location!.searchParams.get('error')).toBe('access_denied');
    expect(back.location!.searchParams.get('state')).toBe(state);
    expect(back.location!.searchParams.get('code')).toBeNull();
    await person.as('post', '/console/v1/step-up').send({ password: person.password }).expect(200);
    expect(
      (
        await person
          .as('post', `/console/v1/oauth/interactions/${uid}/approve`)
          .set(CONSENT_BROWSER, proof)
          .send({ project_id: person.projectId })
      ).status,
    ).toBe(404);
  });

  it('the consent API needs a console session', async () => {
    expect((await request(h.app).get('/console/v1/oauth/interactions/x')).status).toBe(401);
    expect(
      (await request(h.app).post('/console/v1/oauth/interactions/x/approve').send({ project_id: 'p' }))
        .status,
    ).toBe(401);
  });

  it('a browser without the interaction cookies cannot finish someone else’s flow', async () => {
    const person = await signedInPerson(h, 'cookies');
    const clientId = await newClient();
    const { landed, jar } = await authorize({ clientId });
    const uid = uidOf(landed.location);
    const proof = await bound(uid, jar);
    await person.as('post', '/console/v1/step-up').send({ password: person.password }).expect(200);
    const approved = await person
      .as('post', `/console/v1/oauth/interactions/${uid}/approve`)
      .set(CONSENT_BROWSER, proof)
      .send({ project_id: person.projectId })
      .expect(200);
    const stolen = await browse(approved.body.redirect_to, new CookieJar());
    expect(stolen.location?.searchParams.get('code') ?? null).toBeNull();
  });
});

async function eventually(check: () => Promise<boolean>, ceilingMs = 60_000): Promise<void> {
  const until = Date.now() + ceilingMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('throttled per client address (throttle.test.ts has the rest)', () => {
  /** Registrations until one is held back, each sent as from `client` through a proxy on loopback. */
  async function registrationsUntilHeld(t: OAuthHarness, client: string, ceiling = 40): Promise<number> {
    for (let n = 0; n < ceiling; n++) {
      const reg = await registerClient(
        t.issuer,
        { client_name: `c${n}`, redirect_uris: [REDIRECT] },
        { 'x-forwarded-for': client },
      );
      if (reg.status === 429) return n;
      expect(reg.status).toBe(201);
    }
    throw new Error(`no registration held back after ${ceiling}`);
  }

  it('behind a trusted reverse proxy, each client its proxy names has its own budget', async () => {
    const t = await startOAuthHarness({}, { trustedProxies: ['loopback'] });
    try {
      const free = await registrationsUntilHeld(t, '203.0.113.7');
      expect(free).toBeGreaterThan(0);
      // Another client behind the same proxy is not held back with the first.
      expect(await registrationsUntilHeld(t, '203.0.113.8')).toBe(free);
    } finally {
      await t.close();
    }
  });

  it('without a trusted proxy, X-Forwarded-For is not believed: a client cannot name a fresh address', async () => {
    const t = await startOAuthHarness();
    try {
      const free = await registrationsUntilHeld(t, '203.0.113.7');
      expect(await registrationsUntilHeld(t, '203.0.113.8')).toBe(0);
      expect(free).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });
});

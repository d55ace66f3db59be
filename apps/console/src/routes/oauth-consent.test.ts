import { browse, browseToExit, CookieJar, pkce, registerClient, token } from '@svc/identity/oauth-client';
import request from 'supertest';
import {
  type ConsoleTestBed,
  csrfIn,
  OAUTH_RESOURCE,
  PUBLIC_URL,
  signIn,
  startConsoleTestBed,
} from '../testing/console-harness';

// The consent page over a real identity: an MCP client's authorization request lands here, the
// person signs in, confirms their password, picks a project, and the client gets its code.
let bed: ConsoleTestBed;
let issuer: string;
beforeAll(async () => {
  bed = await startConsoleTestBed();
  issuer = `${bed.identityUrl}/oauth`;
});
afterAll(async () => {
  await bed.close();
});

const RESOURCE = OAUTH_RESOURCE;
const REDIRECT = 'http://127.0.0.1:53682/callback';

async function startSignIn(clientName: string, redirect = REDIRECT) {
  const reg = await registerClient(issuer, { client_name: clientName, redirect_uris: [redirect] });
  expect(reg.status).toBe(201);
  const clientId = reg.body.client_id as string;
  const { verifier, challenge } = pkce();
  const url = new URL(`${issuer}/auth`);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirect,
    response_type: 'code',
    scope: 'mcp:read',
    state: 'the-state',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: RESOURCE,
  }).toString();
  const jar = new CookieJar();
  const landed = await browseToExit(url.href, jar, issuer);
  expect(landed.location?.pathname).toMatch(/^\/oauth\/consent\/[A-Za-z0-9_-]+$/);
  return { clientId, verifier, jar, consentPath: landed.location!.pathname };
}

type Agent = Awaited<ReturnType<typeof signIn>>;

/**
 * The consent page in the browser that began the sign-in (`agent` its console cookies, `jar` its
 * identity cookies): the first visit sends it to identity's bind address, which sends it back.
 */
async function openConsent(agent: Agent, flow: { consentPath: string; jar: CookieJar }) {
  const first = await agent.get(flow.consentPath).expect(200);
  // Shown at once only where nothing binds a sign-in to its browser (what the first test rules out).
  if (!first.text.includes('Checking this browser')) return first;
  const bindUrl = bindUrlIn(first.text);
  expect(bindUrl.startsWith(`${issuer}/interaction/`)).toBe(true);
  const back = await browse(bindUrl, flow.jar);
  expect(back.location?.href).toBe(`${PUBLIC_URL}${flow.consentPath}`);
  return agent.get(flow.consentPath).expect(200);
}

/** Where the page on the way to identity's bind address sends the browser (its link and refresh). */
const bindUrlIn = (html: string) => {
  const to = continueTo(html);
  expect(html).toContain(`content="0;url=${to.replaceAll('&', '&amp;')}"`);
  return to;
};

/** Where the page after allow or deny sends the browser (its link; a meta refresh goes there too). */
const continueTo = (html: string) =>
  (/href="([^"]+)" id="continue"/.exec(html)?.[1] ?? '').replaceAll('&amp;', '&');

const introspect = async (value: string) =>
  (await bed.h.internal('post', '/internal/v1/introspect').send({ token: value }).expect(200)).body;

it('sign-in, password, project, allow: the client gets a token for that project, listed and revoked on /mcp', async () => {
  const u = await bed.user('consent');
  const { app } = bed.consoleApp();
  const flow = await startSignIn('Claude');
  // Not signed in yet: the login page brings the person back here.
  const anonymous = await request(app).get(flow.consentPath);
  expect(anonymous.status).toBe(303);
  expect(anonymous.headers.location).toBe(`/login?next=${encodeURIComponent(flow.consentPath)}`);
  const agent = await signIn(app, u);
  // The first visit sends the browser to identity, to show it began the sign-in.
  expect((await agent.get(flow.consentPath)).text).toContain('Checking this browser');
  const page = await openConsent(agent, flow);
  expect(page.text).toContain('Claude');
  expect(page.text).toContain('127.0.0.1:53682');
  expect(page.text).toContain(`value="${u.projectId}"`);
  expect(page.text).toContain('id="consent-password"');
  const allowed = await agent
    .post(`${flow.consentPath}/approve`)
    .type('form')
    .send({ _csrf: csrfIn(page.text), project_id: u.projectId, password: u.password })
    .expect(200);
  const to = continueTo(allowed.text);
  expect(to.startsWith(issuer)).toBe(true);
  const back = await browseToExit(to, flow.jar, issuer);
  expect(back.location!.searchParams.get('state')).toBe('the-state');
  const issued = await token(issuer, {
    grant_type: 'authorization_code',
    code: back.location!.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    client_id: flow.clientId,
    code_verifier: flow.verifier,
    resource: RESOURCE,
  });
  expect(issued.status).toBe(200);
  const answer = await introspect(issued.body.access_token as string);
  expect(answer).toMatchObject({ active: true, project_id: u.projectId, scopes: ['mcp:read'] });

  const mcp = await agent.get(`/mcp?project=${u.projectId}`).expect(200);
  expect(mcp.text).toContain('OAuth sign-in');
  expect(mcp.text).toContain(`data-token-id="${answer.token_id}"`);
  await agent
    .post(`/mcp/tokens/${answer.token_id}/revoke?project=${u.projectId}`)
    .type('form')
    .send({ _csrf: csrfIn(mcp.text) })
    .expect(303);
  expect(await introspect(issued.body.access_token as string)).toEqual({ active: false });
});

it('a wrong password, or a project of another org, issues nothing and keeps the request open', async () => {
  const u = await bed.user('consent-wrong');
  const other = await bed.user('consent-other');
  const { app } = bed.consoleApp();
  const flow = await startSignIn('Cursor');
  const agent = await signIn(app, u);
  const page = await openConsent(agent, flow);
  const csrf = csrfIn(page.text);
  const wrong = await agent
    .post(`${flow.consentPath}/approve`)
    .type('form')
    .send({ _csrf: csrf, project_id: u.projectId, password: 'not the password' });
  expect(wrong.status).toBe(401);
  expect(wrong.text).toContain('Wrong password.');
  const foreign = await agent
    .post(`${flow.consentPath}/approve`)
    .type('form')
    .send({ _csrf: csrf, project_id: other.projectId, password: u.password });
  expect(foreign.status).toBe(404);
  expect(foreign.text).toContain('No such project in your organization.');
  const mcp = await agent.get(`/mcp?project=${u.projectId}`).expect(200);
  expect(mcp.text).not.toContain('OAuth sign-in');
});

it('deny sends access_denied to the client; an unknown request is a page saying so', async () => {
  const u = await bed.user('consent-deny');
  const { app } = bed.consoleApp();
  const flow = await startSignIn('VS Code');
  const agent = await signIn(app, u);
  const page = await openConsent(agent, flow);
  const denied = await agent
    .post(`${flow.consentPath}/deny`)
    .type('form')
    .send({ _csrf: csrfIn(page.text) })
    .expect(200);
  const back = await browseToExit(continueTo(denied.text), flow.jar, issuer);
  expect(back.location!.searchParams.get('error')).toBe('access_denied');
  expect(back.location!.searchParams.get('code')).toBeNull();
  const again = await agent.get(flow.consentPath);
  expect(again.status).toBe(404);
  expect(again.text).toContain('expired or was already answered');
  expect((await agent.get('/oauth/consent/not-a-request')).status).toBe(404);
});

describe('a consent link opened in a browser that did not begin the sign-in', () => {
  it('shows a page saying so (nothing to approve), refuses forms, and the attacker gets no code', async () => {
    const victim = await bed.user('consent-victim');
    const { app } = bed.consoleApp();
    // The attacker begins a sign-in in their own browser and sends the victim the consent link.
    const attacker = await startSignIn('Claude Code');
    const agent = await signIn(app, victim);
    const victimJar = new CookieJar();
    const first = await agent.get(attacker.consentPath);
    expect(first.text).toContain('Checking this browser');
    expect(first.text).not.toContain('id="consent"');
    // identity sees the victim's browser holds no cookie of that start: its error page, the end.
    const bind = await browse(bindUrlIn(first.text), victimJar);
    expect([bind.status, bind.location]).toEqual([403, undefined]);
    expect(bind.body).toContain('started in another browser');
    // Forms posted anyway (the person's own CSRF token from another page) are refused.
    const csrf = csrfIn((await agent.get('/mcp').expect(200)).text);
    const approve = await agent
      .post(`${attacker.consentPath}/approve`)
      .type('form')
      .send({ _csrf: csrf, project_id: victim.projectId, password: victim.password });
    expect(approve.status).toBe(403);
    expect(approve.text).toContain('started in another browser');
    expect(approve.text).not.toContain('id="consent"');
    const deny = await agent.post(`${attacker.consentPath}/deny`).type('form').send({ _csrf: csrf });
    expect(deny.status).toBe(403);
    // The attacker's own browser resumes: no code.
    const uid = attacker.consentPath.split('/').pop()!;
    const resumed = await browse(`${issuer}/auth/${uid}`, attacker.jar);
    expect(resumed.location?.searchParams.get('code') ?? null).toBeNull();
    const mcp = await agent.get(`/mcp?project=${victim.projectId}`).expect(200);
    expect(mcp.text).not.toContain('OAuth sign-in');
  });

  it('once the attacker bound their own browser, the victim gets the console page saying so', async () => {
    const attackerUser = await bed.user('consent-attacker');
    const victim = await bed.user('consent-victim-2');
    const { app } = bed.consoleApp();
    const attacker = await startSignIn('Claude Code');
    await openConsent(await signIn(app, attackerUser), attacker);
    const page = await (await signIn(app, victim)).get(attacker.consentPath);
    expect(page.status).toBe(403);
    expect(page.text).toContain('started in another browser');
    expect(page.text).not.toContain('id="consent"');
    expect(page.text).not.toContain('id="deny"');
  });
});

describe('what the consent page shows of a client', () => {
  it('writes out bidirectional and control characters of its name: a name cannot pose as another', async () => {
    const u = await bed.user('consent-bidi');
    const { app } = bed.consoleApp();
    const flow = await startSignIn('Evil \u202Eedoc edualC\u2066\u200B');
    const page = await openConsent(await signIn(app, u), flow);
    const name = /<strong id="client-name">([^<]*)<\/strong>/.exec(page.text)?.[1];
    expect(name).toBe('Evil [U+202E]edoc edualC[U+2066][U+200B]');
    expect(page.text).not.toMatch(/[\u202E\u2066\u200B]/);
    expect(page.text).toContain('id="client-name-note"');
  });

  it('calls out a redirect URI on a web site, which a loopback one is not', async () => {
    const u = await bed.user('consent-remote');
    const { app } = bed.consoleApp();
    const agent = await signIn(app, u);
    const remote = await openConsent(agent, await startSignIn('Web client', 'https://evil.example/cb'));
    expect(remote.text).toContain('id="remote-redirect"');
    expect(remote.text).toMatch(/web site <strong>evil\.example<\/strong>/);
    const local = await openConsent(agent, await startSignIn('Native client'));
    expect(local.text).not.toContain('id="remote-redirect"');
  });

  it('sends the browser back to the configured issuer after allow, even when the sign-in began with a forged Host', async () => {
    const u = await bed.user('consent-host');
    const { app } = bed.consoleApp();
    const reg = await registerClient(issuer, { client_name: 'Host', redirect_uris: [REDIRECT] });
    const url = new URL(`${issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: String(reg.body.client_id),
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'mcp:read',
      state: 's',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: RESOURCE,
    }).toString();
    const started = await request(bed.h.app).get(`${url.pathname}${url.search}`).set('host', 'evil.example');
    expect(started.status).toBe(303);
    const jar = new CookieJar();
    jar.takeLines(started.headers['set-cookie'] as unknown as string[]);
    const consentPath = new URL(String(started.headers.location)).pathname;
    const agent = await signIn(app, u);
    const page = await openConsent(agent, { consentPath, jar });
    const allowed = await agent
      .post(`${consentPath}/approve`)
      .type('form')
      .send({ _csrf: csrfIn(page.text), project_id: u.projectId, password: u.password })
      .expect(200);
    const to = continueTo(allowed.text);
    expect(to).toBe(`${issuer}/auth/${consentPath.split('/').pop()}`);
    expect(allowed.text).toContain(`content="0;url=${issuer}/auth/`);
  });
});

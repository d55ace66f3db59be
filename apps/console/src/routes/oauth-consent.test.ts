import { browseToExit, CookieJar, pkce, registerClient, token } from '@svc/identity/oauth-client';
import request from 'supertest';
import { type ConsoleTestBed, csrfIn, signIn, startConsoleTestBed } from '../testing/console-harness';

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

// identity's default resource: the gateway on localhost's usual port (the harness keeps defaults).
const RESOURCE = 'http://localhost:8092/mcp';
const REDIRECT = 'http://127.0.0.1:53682/callback';

async function startSignIn(clientName: string) {
  const reg = await registerClient(issuer, { client_name: clientName, redirect_uris: [REDIRECT] });
  expect(reg.status).toBe(201);
  const clientId = reg.body.client_id as string;
  const { verifier, challenge } = pkce();
  const url = new URL(`${issuer}/auth`);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
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
  const page = await agent.get(flow.consentPath).expect(200);
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
  const page = await agent.get(flow.consentPath).expect(200);
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
  const page = await agent.get(flow.consentPath).expect(200);
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

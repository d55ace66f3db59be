import type { Harness } from '@svc/identity/harness';
import request from 'supertest';
import {
  type ConsoleTestBed,
  csrfIn,
  PUBLIC_URL,
  signIn,
  startConsoleTestBed,
} from './testing/console-harness';

// The console over a real identity (PGlite) on loopback. Tool pages need a gateway and are tested
// with the whole stack (apps/standalone/src/e2e); here: sessions, CSRF, step-up, tokens, isolation.

let bed: ConsoleTestBed;
let h: Harness;

beforeAll(async () => {
  bed = await startConsoleTestBed();
  h = bed.h;
});
afterAll(async () => {
  await bed.close();
});

const consoleApp = (publicUrl = PUBLIC_URL) => bed.consoleApp({ publicUrl });
const user = (name: string) => bed.user(name);

describe('sign-in and session cookie', () => {
  it('sets an HttpOnly SameSite=Strict cookie, Secure and __Host- prefixed over https only', async () => {
    const u = await user('cookie');
    for (const [url, secure] of [
      [PUBLIC_URL, false],
      ['https://console.example.com', true],
    ] as const) {
      const { app } = consoleApp(url);
      const form = await request(app).get('/login').expect(200);
      // A Secure cookie is not sent back over plain http by an agent: returned by hand.
      const pre = (form.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
      expect(pre.startsWith(secure ? '__Host-svc_console_login=' : 'svc_console_login=')).toBe(true);
      const res = await request(app)
        .post('/login')
        .set('Cookie', pre)
        .type('form')
        .send({ _csrf: csrfIn(form.text), email: u.email, password: u.password });
      const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.includes('svc_ses_'))!;
      expect(cookie).toMatch(secure ? /^__Host-svc_console=svc_ses_/ : /^svc_console=svc_ses_/);
      expect(cookie).toContain('HttpOnly');
      expect(cookie).toContain('SameSite=Strict');
      expect(cookie).toContain('Path=/');
      expect(cookie.includes('Secure')).toBe(secure);
    }
  });

  it('refuses a wrong password and a login form without its CSRF value', async () => {
    const u = await user('wrong');
    const { app } = consoleApp();
    const agent = request.agent(app);
    const form = await agent.get('/login').expect(200);
    const wrong = await agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrfIn(form.text), email: u.email, password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Wrong email or password.');
    const forged = await request(app)
      .post('/login')
      .type('form')
      .send({ email: u.email, password: u.password });
    expect(forged.status).toBe(403);
    expect(forged.headers['set-cookie']?.toString() ?? '').not.toContain('svc_ses_');
  });

  it('never redirects elsewhere after sign-in', async () => {
    const u = await user('redirect');
    const { app } = consoleApp();
    for (const next of ['https://evil.example/', '//evil.example/', '/\\evil.example']) {
      const agent = request.agent(app);
      const form = await agent.get('/login').expect(200);
      const res = await agent
        .post('/login')
        .type('form')
        .send({ _csrf: csrfIn(form.text), email: u.email, password: u.password, next });
      expect(res.headers.location).toBe('/overview');
    }
  });

  it('sends every page without a session to sign-in, and refuses every POST', async () => {
    const { app } = consoleApp();
    for (const path of ['/mcp', '/mcp?tab=api', '/mcp/tokens/tok_x/revoke']) {
      const res = await request(app).get(path).expect(303);
      expect(res.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    for (const path of [
      '/mcp/step-up',
      '/mcp/tokens',
      '/mcp/api-tokens',
      '/mcp/tokens/tok_x/revoke',
      '/logout',
    ]) {
      expect((await request(app).post(path).type('form').send({})).status).toBe(401);
    }
    const forged = await request(app).get('/mcp').set('Cookie', 'svc_console=svc_ses_forged').expect(303);
    expect(forged.headers.location).toMatch(/^\/login/);
  });

  it('signs out: the session and the cookie are gone', async () => {
    const u = await user('logout');
    const { app } = consoleApp();
    const agent = await signIn(app, u);
    const page = await agent.get('/mcp').expect(200);
    const out = await agent
      .post('/logout')
      .type('form')
      .send({ _csrf: csrfIn(page.text) });
    expect(out.status).toBe(303);
    expect((await agent.get('/mcp')).status).toBe(303);
  });
});

describe('the MCP page', () => {
  it('needs a step-up, shows a new token once with client configs, lists and revokes it', async () => {
    const u = await user('tokens');
    const { app, logs } = consoleApp();
    const agent = await signIn(app, u);
    const page = await agent.get('/mcp').expect(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toContain('id="step-up"');
    expect(page.text).not.toContain('id="create-token"');
    const csrf = csrfIn(page.text);

    // Creating before the step-up is refused by identity, and said so.
    const early = await agent
      .post(`/mcp/tokens?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf, name: 'x', days: '90' });
    expect(early.status).toBe(403);
    expect(early.text).toContain('Confirm your password first');

    expect(
      (await agent.post('/mcp/step-up').type('form').send({ _csrf: csrf, password: 'wrong' })).status,
    ).toBe(401);
    await agent.post('/mcp/step-up').type('form').send({ _csrf: csrf, password: u.password }).expect(303);
    const ready = await agent.get('/mcp').expect(200);
    expect(ready.text).toContain('id="create-token"');

    const created = await agent
      .post('/mcp/tokens')
      .type('form')
      .send({ _csrf: csrf, name: 'laptop', days: '30' });
    expect(created.status).toBe(201);
    const token =
      /id="new-token" readonly="" value="(svc_pat_[0-9A-Za-z]+)"/i.exec(created.text)?.[1] ??
      /value="(svc_pat_[0-9A-Za-z]+)"/.exec(created.text)?.[1];
    expect(token).toMatch(/^svc_pat_/);
    for (const id of [
      'config-claude-code',
      'config-claude-desktop',
      'config-cursor',
      'config-inspector',
      'config-mcp-curl',
    ]) {
      expect(created.text).toContain(`id="${id}"`);
    }
    // The MCP curl call names its revision, method and tool in headers (no session needed).
    expect(created.text).toMatch(/MCP-Protocol-Version: 2026-07-28.*Mcp-Name: log\.aggregate/s);
    expect(created.text).toContain('https://mcp.example.com/mcp');

    // Shown once: no later page, log line or listing holds it.
    const list = await agent.get('/mcp').expect(200);
    expect(list.text).toContain('laptop');
    expect(list.text).not.toContain(token!);
    expect(JSON.stringify(logs)).not.toContain(token!);
    const introspect = async () =>
      (await h.internal('post', '/internal/v1/introspect').send({ token }).expect(200)).body.active;
    expect(await introspect()).toBe(true);

    const tokenId = /data-token-id="(tok_[^"]+)"/.exec(list.text)![1]!;
    const confirm = await agent.get(`/mcp/tokens/${tokenId}/revoke?project=${u.projectId}`).expect(200);
    expect(confirm.text).toContain('Revoke token');
    const revoked = await agent
      .post(`/mcp/tokens/${tokenId}/revoke?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrfIn(confirm.text) });
    expect(revoked.status).toBe(303);
    expect(await introspect()).toBe(false);
    expect((await agent.get(revoked.headers.location!).expect(200)).text).toContain('revoked');
  });

  it('issues general API tokens that MCP refuses, and says so', async () => {
    const u = await user('api-tokens');
    const { app } = consoleApp();
    const agent = await signIn(app, u);
    const page = await agent.get('/mcp?tab=api').expect(200);
    expect(page.text).toContain('MCP refuses them');
    const csrf = csrfIn(page.text);
    await agent
      .post('/mcp/step-up?tab=api')
      .type('form')
      .send({ _csrf: csrf, password: u.password })
      .expect(303);
    const created = await agent
      .post('/mcp/api-tokens')
      .type('form')
      .send({ _csrf: csrf, name: 'api', days: '7' });
    expect(created.status).toBe(201);
    expect(created.text).toContain('api:read');
    expect(created.text).not.toContain('id="config-cursor"');
  });

  it('refuses a state change without the CSRF token or from another origin', async () => {
    const u = await user('csrf');
    const { app } = consoleApp();
    const agent = await signIn(app, u);
    const csrf = csrfIn((await agent.get('/mcp').expect(200)).text);
    expect((await agent.post('/mcp/step-up').type('form').send({ password: u.password })).status).toBe(403);
    expect(
      (await agent.post('/mcp/step-up').type('form').send({ _csrf: 'x', password: u.password })).status,
    ).toBe(403);
    const crossSite = await agent
      .post('/mcp/step-up')
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ _csrf: csrf, password: u.password });
    expect(crossSite.status).toBe(403);
    // Another session's token does not fit this one.
    const other = await signIn(app, u);
    const otherCsrf = csrfIn((await other.get('/mcp').expect(200)).text);
    expect(otherCsrf).not.toBe(csrf);
    expect(
      (await agent.post('/mcp/step-up').type('form').send({ _csrf: otherCsrf, password: u.password })).status,
    ).toBe(403);
    await agent
      .post('/mcp/step-up')
      .set('Origin', PUBLIC_URL)
      .type('form')
      .send({ _csrf: csrf, password: u.password })
      .expect(303);
  });

  it("never shows another org's project or tokens", async () => {
    const a = await user('iso-a');
    const b = await user('iso-b');
    const { app } = consoleApp();
    const bAgent = await signIn(app, b);
    const bCsrf = csrfIn((await bAgent.get('/mcp').expect(200)).text);
    await bAgent.post('/mcp/step-up').type('form').send({ _csrf: bCsrf, password: b.password }).expect(303);
    await bAgent
      .post('/mcp/tokens')
      .type('form')
      .send({ _csrf: bCsrf, name: 'b-secret-name', days: '5' })
      .expect(201);
    const bTokenId = /data-token-id="(tok_[^"]+)"/.exec((await bAgent.get('/mcp').expect(200)).text)![1]!;

    const aAgent = await signIn(app, a);
    const aPage = await aAgent.get('/mcp').expect(200);
    expect(aPage.text).not.toContain(b.projectId);
    expect(aPage.text).not.toContain('b-secret-name');
    expect((await aAgent.get(`/mcp?project=${b.projectId}`)).status).toBe(404);
    const aCsrf = csrfIn(aPage.text);
    const revoke = await aAgent.post(`/mcp/tokens/${bTokenId}/revoke`).type('form').send({ _csrf: aCsrf });
    expect(revoke.status).toBe(404);
    expect((await bAgent.get('/mcp').expect(200)).text).toContain('active');
  });
});

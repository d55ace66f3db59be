import {
  authorizationRequest,
  bindBrowser,
  browse,
  browseToExit,
  CONSENT_BROWSER,
  CookieJar,
  consoleBrowser,
  LOOPBACK_REDIRECT,
  type OAuthHarness,
  registerClient,
  signedInPerson,
  startOAuthHarness,
} from '../testing/oauth-client';

// What a client may register as its redirect URIs, and when an error goes back to one (RFC 9700
// §4.11.2: the authorization server must not be an open redirector).
let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await h.close();
});

const EVIL = 'https://evil.example/cb';

describe('registration', () => {
  it.each([
    ['plain http on a remote host', { redirect_uris: ['http://evil.example/cb'] }],
    ['user information that reads as another host', { redirect_uris: ['https://claude.ai@evil.example/cb'] }],
    ['a private-use scheme for a web client', { redirect_uris: ['com.example.app:/cb'] }],
    ['a fragment', { redirect_uris: ['https://app.example.com/cb#x'] }],
  ])('refuses %s', async (_case, metadata) => {
    const reg = await registerClient(h.issuer, { client_name: 'refused', ...metadata });
    expect([reg.status, reg.body.error]).toEqual([400, 'invalid_redirect_uri']);
  });

  it.each([
    [
      'a loopback callback (native, any application type)',
      { redirect_uris: [LOOPBACK_REDIRECT, 'http://localhost:6274/cb', 'http://[::1]/cb'] },
    ],
    ['https on any host (shown as a web site on the consent page)', { redirect_uris: [EVIL] }],
    [
      'a private-use scheme for a native client',
      { application_type: 'native', redirect_uris: ['com.example.app:/cb'] },
    ],
  ])('accepts %s', async (_case, metadata) => {
    expect((await registerClient(h.issuer, { client_name: 'accepted', ...metadata })).status).toBe(201);
  });
});

describe('errors before the person answered', () => {
  async function clientWith(redirect: string) {
    const reg = await registerClient(h.issuer, { client_name: 'c', redirect_uris: [redirect] });
    expect(reg.status).toBe(201);
    return String(reg.body.client_id);
  }

  it.each([
    ['a wrong resource', { resource: 'http://elsewhere.test/mcp' }],
    ['no resource', { resource: null }],
    ['no PKCE', { code_challenge: null, code_challenge_method: null }],
    ['a response type it does not issue', { response_type: 'token' }],
  ])('%s with a remote https redirect URI: our error page, never a redirect to it', async (_case, params) => {
    const clientId = await clientWith(EVIL);
    const res = await fetch(authorizationRequest(h.issuer, clientId, { redirect_uri: EVIL, ...params }).url, {
      redirect: 'manual',
    });
    expect([res.status, res.headers.get('location')]).toEqual([400, null]);
    expect(await res.text()).toContain('Sign-in failed');
  });

  it('with a loopback redirect URI: back to the client, which is on the person’s own machine', async () => {
    const clientId = await clientWith(LOOPBACK_REDIRECT);
    const res = await fetch(
      authorizationRequest(h.issuer, clientId, { resource: 'http://elsewhere.test/mcp' }).url,
      {
        redirect: 'manual',
      },
    );
    const back = new URL(res.headers.get('location')!);
    expect([res.status, back.origin + back.pathname, back.searchParams.get('error')]).toEqual([
      303,
      LOOPBACK_REDIRECT,
      'invalid_target',
    ]);
  });

  it('once the person denied on the consent page, the answer goes to the remote client they saw', async () => {
    const person = await signedInPerson(h, 'remote');
    const clientId = await clientWith(EVIL);
    const jar = new CookieJar();
    const landed = await browseToExit(
      authorizationRequest(h.issuer, clientId, { redirect_uri: EVIL }).url.href,
      jar,
      h.issuer,
    );
    const uid = landed.location!.pathname.split('/').pop()!;
    const proof = consoleBrowser().proof(uid);
    expect((await bindBrowser(h.issuer, uid, jar, proof)).status).toBe(303);
    const details = (
      await person.as('get', `/console/v1/oauth/interactions/${uid}`).set(CONSENT_BROWSER, proof).expect(200)
    ).body;
    expect(details).toMatchObject({ redirect_host: 'evil.example', redirect_local: false });
    const denied = await person
      .as('post', `/console/v1/oauth/interactions/${uid}/deny`)
      .set(CONSENT_BROWSER, proof)
      .expect(200);
    const back = await browse(denied.body.redirect_to, jar);
    expect(back.location?.origin).toBe('https://evil.example');
    expect(back.location?.searchParams.get('error')).toBe('access_denied');
  });
});

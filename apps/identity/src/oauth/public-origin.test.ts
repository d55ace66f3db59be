import request from 'supertest';
import {
  authorizationRequest,
  bindBrowser,
  browseToExit,
  CONSENT_BROWSER,
  CONSOLE,
  CookieJar,
  consoleBrowser,
  LOOPBACK_REDIRECT,
  type OAuthHarness,
  registerClient,
  signedInPerson,
  startOAuthHarness,
} from '../testing/oauth-client';

// Every URL the authorization server writes is the configured issuer's, whatever Host (or
// X-Forwarded-Host) a request names: its metadata, the resume address the console's done page
// sends the browser to, the cookies' paths.
let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await h.close();
});

const HOSTILE = { host: 'evil.example', 'x-forwarded-host': 'evil2.example', 'x-forwarded-proto': 'https' };

it.each([
  ['the path-aware address', '/.well-known/oauth-authorization-server/oauth'],
  ["the issuer's own address", '/oauth/.well-known/oauth-authorization-server'],
])('metadata at %s names only the issuer, whatever the Host', async (_at, path) => {
  const meta = (await request(h.app).get(path).set(HOSTILE).expect(200)).body as Record<string, unknown>;
  expect(meta.issuer).toBe(h.issuer);
  const urls = Object.entries(meta).filter(([, v]) => typeof v === 'string' && /^https?:/.test(v));
  expect(urls.length).toBeGreaterThan(3);
  for (const [name, url] of urls)
    expect([name, String(url).startsWith(`${h.issuer}/`) || url === h.issuer]).toEqual([name, true]);
});

it('a sign-in started with a forged Host resumes at the issuer: the done page never sends the browser elsewhere', async () => {
  const person = await signedInPerson(h, 'host');
  const reg = await registerClient(h.issuer, {
    client_name: 'host test',
    redirect_uris: [LOOPBACK_REDIRECT],
  });
  const { url } = authorizationRequest(h.issuer, String(reg.body.client_id));
  const jar = new CookieJar();
  const started = await request(h.app).get(`${url.pathname}${url.search}`).set(HOSTILE);
  expect(started.status).toBe(303);
  const consentAt = String(started.headers.location);
  expect(consentAt.startsWith(`${CONSOLE}/oauth/consent/`)).toBe(true);
  const cookies = started.headers['set-cookie'] as unknown as string[];
  // Cookies for the issuer's own paths (the resume address), none naming the forged host.
  expect(cookies.join('\n')).not.toMatch(/evil/);
  expect(cookies.some((c) => c.includes(`path=/oauth/auth/`))).toBe(true);
  jar.takeLines(cookies);
  const uid = consentAt.split('/').pop()!;
  const proof = consoleBrowser().proof(uid);
  expect((await bindBrowser(h.issuer, uid, jar, proof)).status).toBe(303);
  await person.as('post', '/console/v1/step-up').send({ password: person.password }).expect(200);
  const approved = await person
    .as('post', `/console/v1/oauth/interactions/${uid}/approve`)
    .set(CONSENT_BROWSER, proof)
    .set(HOSTILE)
    .send({ project_id: person.projectId })
    .expect(200);
  expect(approved.body.redirect_to).toBe(`${h.issuer}/auth/${uid}`);
  const back = await browseToExit(approved.body.redirect_to, jar, h.issuer);
  expect(back.location?.searchParams.get('code')).toEqual(expect.any(String));
  expect(back.location?.searchParams.get('iss')).toBe(h.issuer);
});

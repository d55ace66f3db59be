import {
  authorizationRequest,
  bindBrowser,
  browse,
  browseToExit,
  CONSENT_BROWSER,
  CONSOLE,
  CookieJar,
  consoleBrowser,
  type OAuthHarness,
  registerClient,
  signedInPerson,
  startOAuthHarness,
} from '../testing/oauth-client';

// A sign-in belongs to the browser that began it at /oauth/auth. The attack this guards against: an
// unauthenticated attacker registers a client named like a known one with a loopback redirect,
// starts /oauth/auth in their own browser and sends the victim the consent link; the victim signs
// in, picks a project and approves, and the attacker's browser resumes and collects the code.
let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await h.close();
});

async function attackerStarts() {
  const reg = await registerClient(h.issuer, {
    client_name: 'Claude Code',
    redirect_uris: ['http://127.0.0.1:53682/callback'],
  });
  expect(reg.status).toBe(201);
  const jar = new CookieJar();
  const landed = await browseToExit(
    authorizationRequest(h.issuer, String(reg.body.client_id)).url.href,
    jar,
    h.issuer,
  );
  expect(landed.location?.href.startsWith(`${CONSOLE}/oauth/consent/`)).toBe(true);
  return { jar, uid: landed.location!.pathname.split('/').pop()! };
}

const interaction = (uid: string) => `/console/v1/oauth/interactions/${uid}`;

it("a victim who opens an attacker's consent link can neither see, approve nor deny it, and the attacker gets no code", async () => {
  const victim = await signedInPerson(h, 'victim');
  const attacker = await attackerStarts();
  // The victim's browser has begun sign-ins of its own before: its identity cookie is no help.
  const victimJar = new CookieJar();
  const own = await registerClient(h.issuer, {
    client_name: 'mine',
    redirect_uris: ['http://127.0.0.1:1/cb'],
  });
  await browseToExit(
    authorizationRequest(h.issuer, String(own.body.client_id), { redirect_uri: 'http://127.0.0.1:1/cb' }).url
      .href,
    victimJar,
    h.issuer,
  );
  const proof = consoleBrowser().proof(attacker.uid);

  // The consent page asks identity: not this browser's yet, so the browser is sent to bind itself.
  const shown = await victim.as('get', interaction(attacker.uid)).set(CONSENT_BROWSER, proof);
  expect(shown.status).toBe(409);
  expect(shown.body).toMatchObject({ error: 'browser_not_bound' });
  expect(shown.body.client_name).toBeUndefined();
  expect(shown.body.bind_url).toBe(`${h.issuer}/interaction/${attacker.uid}/bind?browser=${proof}`);
  // Without the cookie of the browser that began it: an error page, and nothing recorded.
  const bind = await bindBrowser(h.issuer, attacker.uid, victimJar, proof);
  expect([bind.status, bind.location]).toEqual([403, undefined]);
  expect(bind.body).toContain('started in another browser');
  expect((await victim.as('get', interaction(attacker.uid)).set(CONSENT_BROWSER, proof)).status).toBe(409);

  await victim.as('post', '/console/v1/step-up').send({ password: victim.password }).expect(200);
  const approve = await victim
    .as('post', `${interaction(attacker.uid)}/approve`)
    .set(CONSENT_BROWSER, proof)
    .send({ project_id: victim.projectId });
  expect(approve.status).toBe(409);
  const deny = await victim.as('post', `${interaction(attacker.uid)}/deny`).set(CONSENT_BROWSER, proof);
  expect(deny.status).toBe(409);
  // The attacker's browser resumes: no code (the sign-in is still unanswered).
  const resumed = await browse(`${h.issuer}/auth/${attacker.uid}`, attacker.jar);
  expect(resumed.location?.searchParams.get('code') ?? null).toBeNull();
  const listed = await victim.as('get', `/console/v1/projects/${victim.projectId}/mcp-tokens`).expect(200);
  expect(listed.body.items).toEqual([]);
  expect(h.logs.some((l) => l.obj.event === 'oauth_consent_approved')).toBe(false);
});

it('once the attacker bound their own browser, the victim is told it belongs to another browser', async () => {
  const victim = await signedInPerson(h, 'victim-bound');
  const attacker = await attackerStarts();
  const attackerProof = consoleBrowser().proof(attacker.uid);
  expect((await bindBrowser(h.issuer, attacker.uid, attacker.jar, attackerProof)).status).toBe(303);
  const proof = consoleBrowser().proof(attacker.uid);
  for (const call of [
    victim.as('get', interaction(attacker.uid)).set(CONSENT_BROWSER, proof),
    victim.as('post', `${interaction(attacker.uid)}/deny`).set(CONSENT_BROWSER, proof),
    victim.as('post', `${interaction(attacker.uid)}/deny`),
  ]) {
    const answer = await call;
    expect([answer.status, answer.body.error]).toEqual([403, 'other_browser']);
  }
  expect(h.logs.some((l) => l.obj.security_event === 'oauth_consent_other_browser')).toBe(true);
});

it('the browser that began the sign-in binds itself and is answered; it may bind again, nobody else may', async () => {
  const person = await signedInPerson(h, 'starter');
  const { jar, uid } = await attackerStarts();
  const first = consoleBrowser().proof(uid);
  const bind = await bindBrowser(h.issuer, uid, jar, first);
  expect([bind.status, bind.location?.href]).toEqual([303, `${CONSOLE}/oauth/consent/${uid}`]);
  expect((await person.as('get', interaction(uid)).set(CONSENT_BROWSER, first)).status).toBe(200);
  // Its console cookie changed (cleared, expired): the same browser binds the new one.
  const second = consoleBrowser().proof(uid);
  expect((await bindBrowser(h.issuer, uid, jar, second)).status).toBe(303);
  expect((await person.as('get', interaction(uid)).set(CONSENT_BROWSER, second)).status).toBe(200);
  expect((await person.as('get', interaction(uid)).set(CONSENT_BROWSER, first)).status).toBe(403);
  // A bind address with no proof, or for an unknown sign-in: an error page.
  expect((await browse(`${h.issuer}/interaction/${uid}/bind`, jar)).status).toBe(404);
  expect((await bindBrowser(h.issuer, 'no-such-sign-in', jar, second)).status).toBe(404);
});

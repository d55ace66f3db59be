import {
  authorizationRequest,
  bindBrowser,
  browseToExit,
  CONSENT_BROWSER,
  CookieJar,
  consoleBrowser,
  LOOPBACK_REDIRECT,
  type OAuthHarness,
  RESOURCE,
  registerClient,
  signedInPerson,
  startOAuthHarness,
  token,
} from '../testing/oauth-client';
import { INTERACTION_LIMITS, OAUTH_RATES } from './throttle';

// The anonymous endpoints are throttled per client address (a proxy on loopback names each test
// client's address), without locking out whoever shares the address for long, and without ever
// refusing a token request that presents a credential this server issued.
let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness({}, { trustedProxies: ['loopback'] });
});
afterAll(async () => {
  await h.close();
});

let nextAddress = 1;
/** A client address of its own for each test. */
const freshAddress = () => `203.0.113.${nextAddress++}`;
const from = (address: string) => ({ 'x-forwarded-for': address });

async function newClient(address: string, name = 'throttled client') {
  const reg = await registerClient(
    h.issuer,
    { client_name: name, redirect_uris: [LOOPBACK_REDIRECT] },
    from(address),
  );
  expect(reg.status).toBe(201);
  return String(reg.body.client_id);
}

async function tokenFrom(address: string, params: Record<string, string>) {
  const res = await fetch(`${h.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...from(address) },
    body: new URLSearchParams(params).toString(),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, string>,
  };
}

const interactionsStored = async () =>
  (await h.db.query<{ n: number }>("SELECT count(*)::int AS n FROM oauth_models WHERE model = 'Interaction'"))
    .rows[0]!.n;

/** A signed-in client of `address` holding a refresh token. */
async function signedInClient(address: string, name: string) {
  const person = await signedInPerson(h, name);
  const clientId = await newClient(address, `client of ${name}`);
  const { url, verifier } = authorizationRequest(h.issuer, clientId);
  const jar = new CookieJar();
  const landed = await browseToExit(url.href, jar, h.issuer);
  const uid = landed.location!.pathname.split('/').pop()!;
  const proof = consoleBrowser().proof(uid);
  expect((await bindBrowser(h.issuer, uid, jar, proof)).status).toBe(303);
  await person.as('post', '/console/v1/step-up').send({ password: person.password }).expect(200);
  const approved = await person
    .as('post', `/console/v1/oauth/interactions/${uid}/approve`)
    .set(CONSENT_BROWSER, proof)
    .send({ project_id: person.projectId })
    .expect(200);
  const back = await browseToExit(approved.body.redirect_to, jar, h.issuer);
  const issued = await token(h.issuer, {
    grant_type: 'authorization_code',
    code: back.location!.searchParams.get('code')!,
    redirect_uri: LOOPBACK_REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: RESOURCE,
  });
  expect(issued.status).toBe(200);
  return { clientId, refreshToken: String(issued.body.refresh_token) };
}

describe('the token endpoint', () => {
  it('a flood of bogus refresh requests from an address never refuses a valid refresh from it', async () => {
    const address = freshAddress();
    const legit = await signedInClient(address, 'connector');
    const other = await newClient(address, 'bogus client');
    const bogus = (clientId: string, n: number) =>
      tokenFrom(address, {
        grant_type: 'refresh_token',
        refresh_token: `not-a-token-${n}`,
        client_id: clientId,
      });
    // Guesses naming the legitimate client and another, well past every budget.
    const flood: number[] = [];
    for (let n = 0; n < 2 * OAUTH_RATES.tokenFailuresPerAddress.capacity; n++) {
      flood.push((await bogus(n % 2 ? legit.clientId : other, n)).status);
    }
    const held = flood.filter((s) => s === 429).length;
    expect(flood.filter((s) => s === 400).length).toBe(OAUTH_RATES.tokenFailuresPerAddress.capacity);
    expect(held).toBe(OAUTH_RATES.tokenFailuresPerAddress.capacity);
    // 20 refreshes in a row, each with the token the previous one gave: every one answered.
    let refreshToken = legit.refreshToken;
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const refreshed = await tokenFrom(address, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: legit.clientId,
      });
      statuses.push(refreshed.status);
      refreshToken = refreshed.body.refresh_token ?? refreshToken;
    }
    expect(statuses).toEqual(Array(20).fill(200));
    // A refresh token that was issued but already used: its own answer (invalid_grant, and the
    // sign-in revoked for the reuse), never the flood's 429, so the client knows to sign in again.
    const reused = await tokenFrom(address, {
      grant_type: 'refresh_token',
      refresh_token: legit.refreshToken,
      client_id: legit.clientId,
    });
    expect([reused.status, reused.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('a guesser is held back with Retry-After and gets going again at the steady rate, not after a growing lock', async () => {
    const address = freshAddress();
    const clientId = await newClient(address, 'guesser');
    const guess = () =>
      tokenFrom(address, {
        grant_type: 'authorization_code',
        code: 'not-a-code',
        redirect_uri: LOOPBACK_REDIRECT,
        client_id: clientId,
        code_verifier: 'v'.repeat(43),
        resource: RESOURCE,
      });
    for (let i = 0; i < OAUTH_RATES.tokenFailuresPerAddress.capacity; i++)
      expect((await guess()).status).toBe(400);
    const held = await guess();
    expect([held.status, held.body.error]).toEqual([429, 'invalid_request']);
    const wait = Number(held.retryAfter);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(Math.ceil(1 / OAUTH_RATES.tokenFailuresPerAddress.perSecond));
    // Held a hundred times more: the wait does not grow.
    for (let i = 0; i < 100; i++) expect(Number((await guess()).retryAfter)).toBeLessThanOrEqual(wait);
    const start = h.clock.now;
    try {
      h.clock.now = start + wait * 1000;
      expect((await guess()).status).toBe(400);
      expect((await guess()).status).toBe(429);
    } finally {
      h.clock.now = start;
    }
    expect(h.logs.some((l) => l.obj.security_event === 'oauth_throttled' && l.obj.endpoint === 'token')).toBe(
      true,
    );
    // Another address is not held back with it.
    expect(
      (
        await tokenFrom(freshAddress(), {
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: clientId,
        })
      ).status,
    ).toBe(400);
  });
});

describe('sign-ins in progress', () => {
  it(`one address holds at most ${INTERACTION_LIMITS.perAddress} at a time; others are not held back, and an answered one frees its place`, async () => {
    const address = freshAddress();
    const clientId = await newClient(address);
    const before = await interactionsStored();
    const start = () => {
      const { url } = authorizationRequest(h.issuer, clientId, { state: 's'.repeat(1024) });
      return fetch(url, { redirect: 'manual', headers: from(address) });
    };
    const statuses: number[] = [];
    const jars: { uid: string; jar: CookieJar }[] = [];
    for (let i = 0; i < INTERACTION_LIMITS.perAddress + 5; i++) {
      const res = await start();
      statuses.push(res.status);
      if (res.status === 303) {
        const jar = new CookieJar();
        jar.take(res);
        jars.push({ jar, uid: res.headers.get('location')!.split('/').pop()! });
      } else {
        expect(res.headers.get('location')).toBeNull();
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await res.text()).toContain('too many requests from this address');
      }
    }
    expect(statuses).toEqual([...Array(INTERACTION_LIMITS.perAddress).fill(303), ...Array(5).fill(429)]);
    expect((await interactionsStored()) - before).toBe(INTERACTION_LIMITS.perAddress);
    // Another client address starts at once.
    const elsewhere = await fetch(authorizationRequest(h.issuer, clientId).url, {
      redirect: 'manual',
      headers: from(freshAddress()),
    });
    expect(elsewhere.status).toBe(303);
    // One of the address's sign-ins is answered (denied) and its browser comes back: a place is free.
    const person = await signedInPerson(h, 'frees');
    const { jar, uid } = jars[0]!;
    const proof = consoleBrowser().proof(uid);
    expect((await bindBrowser(h.issuer, uid, jar, proof)).status).toBe(303);
    const denied = await person
      .as('post', `/console/v1/oauth/interactions/${uid}/deny`)
      .set(CONSENT_BROWSER, proof)
      .expect(200);
    expect(
      (await browseToExit(denied.body.redirect_to, jar, h.issuer)).location?.searchParams.get('error'),
    ).toBe('access_denied');
    expect((await start()).status).toBe(303);
    expect((await start()).status).toBe(429);
  });

  it('a parameter longer than 1 KB is refused before anything is stored', async () => {
    const address = freshAddress();
    const clientId = await newClient(address);
    const before = await interactionsStored();
    const tooLong: Record<string, string>[] = [
      { state: 's'.repeat(8 * 1024) },
      { login_hint: 'n'.repeat(1025) },
    ];
    for (const params of tooLong) {
      const res = await fetch(authorizationRequest(h.issuer, clientId, params).url, {
        redirect: 'manual',
        headers: from(address),
      });
      // A loopback client's errors go back to it (redirect-policy.ts).
      const back = new URL(res.headers.get('location')!);
      expect([res.status, back.searchParams.get('error')]).toEqual([303, 'invalid_request']);
      expect(back.searchParams.get('error_description')).toMatch(/at most 1024 characters/);
    }
    expect(await interactionsStored()).toBe(before);
  });
});

describe('pushed authorization requests', () => {
  it(`share the start budget of an address: ${OAUTH_RATES.authorize.capacity} at once, then 429`, async () => {
    const address = freshAddress();
    const clientId = await newClient(address);
    const push = () => {
      const params = Object.fromEntries(authorizationRequest(h.issuer, clientId).url.searchParams);
      return fetch(`${h.issuer}/request`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...from(address) },
        body: new URLSearchParams(params).toString(),
      });
    };
    const statuses: number[] = [];
    for (let i = 0; i < OAUTH_RATES.authorize.capacity + 3; i++) statuses.push((await push()).status);
    expect(statuses).toEqual([...Array(OAUTH_RATES.authorize.capacity).fill(201), 429, 429, 429]);
  });
});

describe('registration', () => {
  it(`refuses more than 10 redirect URIs, or one longer than 1 KB`, async () => {
    const address = freshAddress();
    const many = Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${1000 + i}/cb`);
    for (const redirect_uris of [many, [`https://app.example.com/${'a'.repeat(1024)}`]]) {
      const reg = await registerClient(h.issuer, { client_name: 'greedy', redirect_uris }, from(address));
      expect([reg.status, reg.body.error]).toEqual([400, 'invalid_redirect_uri']);
    }
    const named = await registerClient(
      h.issuer,
      { client_name: 'n'.repeat(101), redirect_uris: [LOOPBACK_REDIRECT] },
      from(address),
    );
    expect([named.status, named.body.error]).toEqual([400, 'invalid_client_metadata']);
  });

  it(`takes ${OAUTH_RATES.registration.capacity} at once from an address, then 429; another address is not held back`, async () => {
    const address = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < OAUTH_RATES.registration.capacity + 1; i++) {
      statuses.push(
        (
          await registerClient(
            h.issuer,
            { client_name: `c${i}`, redirect_uris: [LOOPBACK_REDIRECT] },
            from(address),
          )
        ).status,
      );
    }
    expect(statuses).toEqual([...Array(OAUTH_RATES.registration.capacity).fill(201), 429]);
    expect(
      (await registerClient(h.issuer, { redirect_uris: [LOOPBACK_REDIRECT] }, from(freshAddress()))).status,
    ).toBe(201);
  });
});

import { generateCACertificate, getLocal, type Mockttp } from 'mockttp';
import {
  bindBrowser,
  browseToExit,
  CONSENT_BROWSER,
  CookieJar,
  consoleBrowser,
  type OAuthHarness,
  pkce,
  RESOURCE,
  signedInPerson,
  startOAuthHarness,
  token,
} from '../testing/oauth-client';

// Clients named by an https URL whose document describes them (Client ID Metadata Documents): the
// documents here come from a loopback https server, trusted only by the harness that is given its CA.
const REDIRECT = 'http://127.0.0.1:53682/callback';

let documents: Mockttp;
let trusting: OAuthHarness;
let guarded: OAuthHarness;
beforeAll(async () => {
  const ca = await generateCACertificate();
  documents = getLocal({ https: { key: ca.key, cert: ca.cert } });
  await documents.start();
  trusting = await startOAuthHarness({ trustedClientDocumentCa: ca.cert, clientDocumentsFromLoopback: true });
  // The same trust in the documents' CA, without the loopback opt-in: what production is.
  guarded = await startOAuthHarness({ trustedClientDocumentCa: ca.cert });
});
afterAll(async () => {
  await trusting.close();
  await guarded.close();
  await documents.stop();
});

async function serveDocument(path: string, extra: Record<string, unknown> = {}) {
  const clientId = documents.urlFor(path);
  const endpoint = await documents.forGet(path).thenJson(
    200,
    {
      client_id: clientId,
      client_name: `document client ${path}`,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...extra,
    },
    { 'cache-control': 'max-age=3600' },
  );
  return { clientId, endpoint };
}

async function authorize(h: OAuthHarness, clientId: string) {
  const { verifier, challenge } = pkce();
  const url = new URL(`${h.issuer}/auth`);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'mcp:read',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: RESOURCE,
  }).toString();
  const jar = new CookieJar();
  return { landed: await browseToExit(url.href, jar, h.issuer), jar, verifier };
}

it('a client known by its metadata document signs in end to end; the document is fetched once and cached', async () => {
  const { clientId, endpoint } = await serveDocument('/cimd/client.json');
  const person = await signedInPerson(trusting, 'cimd');
  const { landed, jar, verifier } = await authorize(trusting, clientId);
  const uid = landed.location!.pathname.split('/').pop()!;
  const proof = consoleBrowser().proof(uid);
  expect((await bindBrowser(trusting.issuer, uid, jar, proof)).status).toBe(303);
  const details = (
    await person.as('get', `/console/v1/oauth/interactions/${uid}`).set(CONSENT_BROWSER, proof).expect(200)
  ).body;
  expect(details).toMatchObject({ client_id: clientId, client_name: 'document client /cimd/client.json' });
  await person.as('post', '/console/v1/step-up').send({ password: person.password }).expect(200);
  const approved = await person
    .as('post', `/console/v1/oauth/interactions/${uid}/approve`)
    .set(CONSENT_BROWSER, proof)
    .send({ project_id: person.projectId })
    .expect(200);
  const back = await browseToExit(approved.body.redirect_to, jar, trusting.issuer);
  const issued = await token(trusting.issuer, {
    grant_type: 'authorization_code',
    code: back.location!.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: RESOURCE,
  });
  expect(issued.status).toBe(200);
  const answer = (
    await trusting
      .internal('post', '/internal/v1/introspect')
      .send({ token: issued.body.access_token })
      .expect(200)
  ).body;
  expect(answer).toMatchObject({ active: true, project_id: person.projectId });
  // Authorization, consent details and token request all needed the client: one fetch served them.
  expect((await endpoint.getSeenRequests()).length).toBe(1);
});

it('outside tests, a document on a loopback address is never fetched (SSRF guard)', async () => {
  const { clientId, endpoint } = await serveDocument('/cimd/guarded.json');
  const { landed } = await authorize(guarded, clientId);
  expect(landed.status).toBe(400);
  expect(landed.location).toBeUndefined();
  expect(landed.body).toContain('invalid_client');
  expect((await endpoint.getSeenRequests()).length).toBe(0);
});

it.each([
  ['larger than 5 KB', '/cimd/large.json', { client_name: 'x'.repeat(6 * 1024) }],
  ['naming another client_id', '/cimd/other.json', { client_id: 'https://elsewhere.test/client.json' }],
  ['with a client secret', '/cimd/secret.json', { client_secret: 's3cret' }],
])('a document %s is refused', async (_case, path, extra) => {
  const { clientId } = await serveDocument(path, extra);
  const { landed } = await authorize(trusting, clientId);
  expect(landed.status).toBe(400);
  expect(landed.location).toBeUndefined();
});

it('a redirect URI the document does not list is refused', async () => {
  const { clientId } = await serveDocument('/cimd/redirects.json', {
    redirect_uris: ['http://127.0.0.1:1/elsewhere'],
  });
  const { landed } = await authorize(trusting, clientId);
  expect(landed.status).toBe(400);
  expect(landed.body).toContain('redirect_uri');
});

// Test support: an MCP client's side of OAuth over real HTTP (fetch, redirects followed by hand,
// cookies kept), and an identity app listening on loopback with its authorization server.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { OAuthOptions } from '../oauth/oauth-options';
import { type Harness, type HarnessOptions, seedProject, startHarness } from './harness';

export const RESOURCE = 'http://gateway.test:8092/mcp';
export const CONSOLE = 'http://console.test:8094';

export interface OAuthHarness extends Harness {
  issuer: string;
  options: OAuthOptions;
  server: Server;
}

/** An identity app on a loopback port, its issuer that address plus /oauth. */
export async function startOAuthHarness(
  extra: Partial<OAuthOptions> = {},
  harness: Pick<HarnessOptions, 'trustedProxies'> = {},
): Promise<OAuthHarness> {
  let handler: Server['emit'] | undefined;
  const server = createServer((req, res) =>
    (handler as unknown as (a: unknown, b: unknown) => void)(req, res),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth`;
  const options: OAuthOptions = { issuer, resource: RESOURCE, consoleUrl: CONSOLE, ...extra };
  const h = await startHarness(undefined, { ...harness, oauth: options } satisfies HarnessOptions);
  handler = h.app as unknown as Server['emit'];
  return {
    ...h,
    issuer,
    options,
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await h.close();
    },
  };
}

/** A browser's cookies for one host, enough for oidc-provider's interaction cookies. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    this.takeLines(res.headers.getSetCookie());
  }
  /** Set-Cookie lines as they came (supertest's `set-cookie` header). */
  takeLines(lines: string[] | undefined): void {
    for (const line of lines ?? []) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A native client's callback on loopback, as the tests register it. */
export const LOOPBACK_REDIRECT = 'http://127.0.0.1:53682/callback';

/**
 * An authorization request as an MCP client builds it (code, S256, the harness's resource); a
 * parameter given as null is left out. Answers the URL and the PKCE verifier.
 */
export function authorizationRequest(
  issuer: string,
  clientId: string,
  params: Record<string, string | null> = {},
): { url: URL; verifier: string } {
  const { verifier, challenge } = pkce();
  const all: Record<string, string | null> = {
    client_id: clientId,
    redirect_uri: LOOPBACK_REDIRECT,
    response_type: 'code',
    scope: 'mcp:read',
    state: `state-${randomBytes(6).toString('hex')}`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: RESOURCE,
    ...params,
  };
  const url = new URL(`${issuer}/auth`);
  for (const [name, value] of Object.entries(all)) if (value !== null) url.searchParams.set(name, value);
  return { url, verifier };
}

export async function registerClient(
  issuer: string,
  metadata: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ token_endpoint_auth_method: 'none', ...metadata }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** GET without following redirects; the jar sends and keeps cookies. */
export async function browse(
  url: string,
  jar: CookieJar,
): Promise<{ status: number; location: URL | undefined; body: string }> {
  const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.take(res);
  const location = res.headers.get('location');
  return {
    status: res.status,
    location: location ? new URL(location, url) : undefined,
    body: await res.text(),
  };
}

/** Follows redirects on the issuer's host only; returns the first one that leaves it (the client's or the console's). */
export async function browseToExit(url: string, jar: CookieJar, issuer: string) {
  let step = await browse(url, jar);
  while (step.location?.href.startsWith(issuer)) step = await browse(step.location.href, jar);
  return step;
}

/** The header the console names its browser's proof in (identity's consent API). */
export const CONSENT_BROWSER = 'x-svc-oauth-browser';

/**
 * The console's side of one browser: a secret of its own, and the proof for a sign-in it derives
 * from it (what the console sends identity with every consent call).
 */
export function consoleBrowser(): { proof(uid: string): string } {
  const secret = randomBytes(32);
  return { proof: (uid) => createHmac('sha256', secret).update(uid).digest('base64url') };
}

/**
 * The console sends the browser (`jar`) to identity's bind address with its proof: identity records
 * it when the jar holds the cookie of the browser that started `uid`. Answers where it went.
 */
export async function bindBrowser(issuer: string, uid: string, jar: CookieJar, proof: string) {
  return browse(`${issuer}/interaction/${uid}/bind?browser=${proof}`, jar);
}

export async function token(issuer: string, params: Record<string, string>) {
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string | number> };
}

/** A person of a fresh org with one project, signed in to the console (its session bearer). */
export async function signedInPerson(h: Harness, name: string) {
  const { orgId, projectId } = await seedProject(h, name);
  const email = `${name}@oauth.test`;
  const password = `password of ${name}`;
  await h.internal('post', '/internal/v1/admin/users').send({ email, password, org_id: orgId }).expect(201);
  const login = await request(h.app).post('/console/v1/login').send({ email, password }).expect(200);
  const session: string = login.body.session_token;
  const as = (method: 'get' | 'post' | 'delete', path: string) =>
    request(h.app)[method](path).set('Authorization', `Bearer ${session}`);
  return { orgId, projectId, email, password, session, as };
}

import { createHash, randomBytes } from 'node:crypto';
import type { Postgres } from '@svc/postgres';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { pgAdapterClass } from './adapter';
import { sendErrorPage } from './error-page';

// A sign-in (an interaction) belongs to the browser that began it at /oauth/auth: only that
// browser may see its consent page, approve or deny it. Otherwise anyone can start a sign-in in
// their own browser, send the consent link to a victim, and collect the code the victim's
// approval releases (the resume is bound to the starter's cookies, not the approver's).
//
// identity and the console may sit on different hosts (docker-compose: identity's /oauth under
// the gateway's host, the console on its own), so neither can read the other's cookies. The
// binding is made in two steps, each a cookie on its own host:
//  1. /oauth/auth sets identity's browser cookie (random, HttpOnly) and stores its digest with the
//     interaction (`starter`).
//  2. The console's consent page derives a proof from its own browser cookie and the uid, and
//     sends the browser to identity's bind address with it. identity records the proof's digest
//     only if the request carries the starter's cookie, then sends the browser back.
// The consent API then answers only the console browser recorded: the console passes its proof
// with every call. A victim opening someone else's consent link is sent to the bind address
// without the starter's cookie and gets an error page; nothing is recorded.

/** A proof is a base64url SHA-256 (43 characters). */
export const PROOF = /^[A-Za-z0-9_-]{43}$/;
const BROWSER_COOKIE = 'svc_oauth_browser';
const BIND_PATH = /^\/interaction\/([A-Za-z0-9_-]{1,100})\/bind$/;

interface Binding {
  /** Digest of identity's browser cookie of the browser that started the sign-in. */
  starter: string;
  /** Digest of the console's proof, once the starter's browser bound it. */
  console?: string;
  /** When the interaction ends (seconds since the epoch). */
  exp: number;
}

export type BindingState = 'bound' | 'unbound' | 'other_browser' | 'unknown';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');
const epochSeconds = () => Math.floor(Date.now() / 1000);

export interface BrowserBinding {
  /** At /oauth/auth, as the interaction `uid` starts (lasting `ttlSeconds`). */
  started(koa: KoaContextWithOIDC, uid: string, ttlSeconds: number): Promise<void>;
  /** Whether the console browser of `proof` may act on `uid`. */
  check(uid: string, proof: string | undefined): Promise<BindingState>;
  /** Where the console sends a browser to bind `uid` to `proof` (identity's public address). */
  bindUrl(uid: string, proof: string): string;
}

export function browserBinding(
  provider: Provider,
  db: Postgres,
  urls: { issuer: string; consoleUrl: string },
): BrowserBinding {
  const store = new (pgAdapterClass(db))('ConsentBinding');
  const secure = new URL(urls.issuer).protocol === 'https:';
  // __Host-: over https the cookie cannot be set by a sibling host (cookie tossing) or for a path.
  const cookieName = secure ? `__Host-${BROWSER_COOKIE}` : BROWSER_COOKIE;
  const read = async (uid: string) => (await store.find(uid)) as Binding | undefined;
  const save = (uid: string, binding: Binding) =>
    store.upsert(uid, { ...binding }, Math.max(1, binding.exp - epochSeconds()));

  provider.use(async (koaContext, next) => {
    const koa = koaContext as unknown as KoaContextWithOIDC;
    const uid = koa.method === 'GET' ? BIND_PATH.exec(koa.path)?.[1] : undefined;
    if (uid === undefined) return next();
    koa.set('cache-control', 'no-store');
    const proof = koa.query.browser;
    const binding = await read(uid);
    if (typeof proof !== 'string' || !PROOF.test(proof) || !binding) {
      return sendErrorPage(
        koa,
        {
          error: 'invalid_request',
          error_description: 'This sign-in request has expired or was already answered.',
        },
        404,
      );
    }
    const cookie = koa.cookies.get(cookieName, { signed: false });
    if (!cookie || digest(cookie) !== binding.starter) {
      return sendErrorPage(
        koa,
        {
          error: 'access_denied',
          error_description:
            'This sign-in was started in another browser. Only the browser your MCP client opened can approve it.',
        },
        403,
      );
    }
    // The starter may bind again (its console cookie changed): only it can, so nothing is taken over.
    await save(uid, { ...binding, console: digest(proof) });
    koa.status = 303;
    koa.redirect(`${urls.consoleUrl}/oauth/consent/${uid}`);
  });

  return {
    async started(koa, uid, ttlSeconds) {
      const existing = koa.cookies.get(cookieName, { signed: false });
      const value = existing && PROOF.test(existing) ? existing : randomBytes(32).toString('base64url');
      koa.cookies.set(cookieName, value, {
        signed: false,
        httpOnly: true,
        secure,
        // Sent on the top-level navigation from the console to the bind address.
        sameSite: 'lax',
        path: '/',
        maxAge: ttlSeconds * 1000,
        overwrite: true,
      });
      await save(uid, { starter: digest(value), exp: epochSeconds() + ttlSeconds });
    },
    async check(uid, proof) {
      const binding = await read(uid);
      if (!binding) return 'unknown';
      if (binding.console === undefined) return 'unbound';
      return proof !== undefined && PROOF.test(proof) && digest(proof) === binding.console
        ? 'bound'
        : 'other_browser';
    },
    bindUrl: (uid, proof) => `${urls.issuer}/interaction/${uid}/bind?browser=${proof}`,
  };
}

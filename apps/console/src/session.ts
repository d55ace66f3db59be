import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies } from 'cookie';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IdentityApi, Me } from './identity-api';
import { SessionEndedError } from './identity-api';

// Sessions: the cookie holds identity's session token (svc_ses_...), HttpOnly (no script reads it),
// SameSite=Strict (no other site's page sends it), Secure and `__Host-` prefixed when the console
// is served over https. The console keeps no session state of its own: identity answers who the
// session is on every page (GET /console/v1/me), so a logout or expiry anywhere is seen at once.
//
// CSRF: every state-changing request carries a token in a form field that only our pages know. For
// a session it is an HMAC of the session token under a key derived from the internal secret
// (nothing to store, and useless with another session); before login, a random value in a cookie of
// its own that the login form must repeat (double submit). A POST whose Origin (or, without one,
// Referer) is not one of the console's own is refused before either check. The console's own: its
// public URL's origin, and when it listens on loopback the loopback origins of its port (people
// open http://127.0.0.1:8094 as often as the public http://localhost:8094; no other site can be
// served from that port).

export interface SessionInfo {
  token: string;
  me: Me;
  csrf: string;
}

export const CSRF_FIELD = '_csrf';
/** Browsers send the login form's double-submit value in this cookie. */
const PRE_SESSION_COOKIE = 'svc_console_login';

export interface SessionCookies {
  read(req: Request): string | undefined;
  set(res: Response, sessionToken: string, expiresAt: Date): void;
  clear(res: Response): void;
  /** The CSRF token of a session. */
  csrfOf(sessionToken: string): string;
  /** A login form's token: a fresh random value, also set as the pre-session cookie. */
  loginCsrf(req: Request, res: Response): string;
  checkLoginCsrf(req: Request): boolean;
  checkCsrf(req: Request, sessionToken: string): boolean;
  /** False for a request whose Origin (or, without one, Referer) names another origin than the console's. */
  sameOrigin(req: Request): boolean;
}

const equal = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The loopback origins of a port: what a browser on the console's host sends when it opens it there. */
export const loopbackOrigins = (port: number): string[] => [
  `http://127.0.0.1:${port}`,
  `http://localhost:${port}`,
  `http://[::1]:${port}`,
];

/** The origin of a Referer, or undefined when it is not a URL. */
function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export function sessionCookies(options: {
  publicUrl: string;
  internalSecret: string;
  /** The port the console listens on when it listens on loopback (its loopback origins count as its own). */
  loopbackPort?: number;
}): SessionCookies {
  const secure = new URL(options.publicUrl).protocol === 'https:';
  // The __Host- prefix pins the cookie to this host and path /, over https only.
  const name = secure ? '__Host-svc_console' : 'svc_console';
  const preName = secure ? `__Host-${PRE_SESSION_COOKIE}` : PRE_SESSION_COOKIE;
  const key = createHmac('sha256', options.internalSecret).update('svc-console-csrf-v1').digest();
  const origins = new Set([
    new URL(options.publicUrl).origin,
    ...(options.loopbackPort === undefined ? [] : loopbackOrigins(options.loopbackPort)),
  ]);
  const base = { httpOnly: true, secure, sameSite: 'strict' as const, path: '/' };
  const cookiesOf = (req: Request) => parseCookies(req.headers.cookie ?? '');
  const csrfOf = (sessionToken: string) => createHmac('sha256', key).update(sessionToken).digest('base64url');
  const formField = (req: Request) => {
    const value = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
    return typeof value === 'string' ? value : undefined;
  };

  return {
    read: (req) => cookiesOf(req)[name] || undefined,
    set: (res, sessionToken, expiresAt) => {
      res.cookie(name, sessionToken, { ...base, expires: expiresAt });
      res.clearCookie(preName, base);
    },
    clear: (res) => res.clearCookie(name, base),
    csrfOf,
    loginCsrf(req, res) {
      const existing = cookiesOf(req)[preName];
      const value =
        existing && /^[A-Za-z0-9_-]{32,64}$/.test(existing)
          ? existing
          : randomBytes(24).toString('base64url');
      res.cookie(preName, value, { ...base, maxAge: 60 * 60 * 1000 });
      return value;
    },
    checkLoginCsrf(req) {
      const cookie = cookiesOf(req)[preName];
      const field = formField(req);
      return !!cookie && !!field && equal(cookie, field);
    },
    checkCsrf(req, sessionToken) {
      const field = formField(req);
      return !!field && equal(field, csrfOf(sessionToken));
    },
    sameOrigin(req) {
      const sent = req.get('origin');
      // Browsers send Origin on every cross-site POST; `null` (an opaque origin) is no origin of ours.
      if (sent !== undefined) return origins.has(sent);
      // Without it (an old browser, a script), a Referer still has to be ours; neither: allowed,
      // the CSRF token decides.
      const referer = req.get('referer');
      if (referer === undefined) return true;
      const from = originOf(referer);
      return from !== undefined && origins.has(from);
    },
  };
}

export const sessionOf = (res: Response): SessionInfo => res.locals.session as SessionInfo;

/**
 * Every page but login's: a live session or a redirect to the login page (a POST without one is
 * refused outright). State-changing requests also need the session's CSRF token and our Origin.
 */
export function requireSession(cookies: SessionCookies, identity: IdentityApi): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = cookies.read(req);
    const toLogin = () => {
      if (req.method === 'GET' || req.method === 'HEAD') {
        res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
      } else {
        res.status(401).type('text').send('Sign in first.');
      }
    };
    if (!token) return toLogin();
    let me: Me;
    try {
      me = await identity.me(token);
    } catch (err) {
      if (err instanceof SessionEndedError) {
        cookies.clear(res);
        return toLogin();
      }
      return next(err);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (!cookies.sameOrigin(req) || !cookies.checkCsrf(req, token)) {
        res
          .status(403)
          .type('text')
          .send('This form has expired or did not come from the console. Reload the page and try again.');
        return;
      }
    }
    res.locals.session = { token, me, csrf: cookies.csrfOf(token) } satisfies SessionInfo;
    next();
  };
}

import { createHmac, randomBytes } from 'node:crypto';
import { parse as parseCookies } from 'cookie';
import type { Request, Response } from 'express';

// Which browser the consent page is shown in, as identity asks to know it: an MCP client's sign-in
// may be answered only by the browser that began it at identity's /oauth/auth. identity cannot read
// the console's cookies (it may be on another host), so the console names its browser by a proof:
// an HMAC of the sign-in's uid under a random secret kept in this browser's cookie. identity binds
// a proof to the sign-in only when the browser bringing it also holds identity's cookie of the
// start; the proof alone is worth nothing elsewhere (another sign-in gives another proof, another
// browser has another secret).

const COOKIE = 'svc_oauth_consent';
/** Long enough for a sign-in (10 minutes) begun late in the hour; renewed on each consent page. */
const MAX_AGE_MS = 60 * 60 * 1000;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export interface ConsentBrowser {
  /** This browser's proof for the sign-in `uid`, setting its secret cookie when it has none. */
  proof(req: Request, res: Response, uid: string): string;
}

export function consentBrowser(options: { publicUrl: string }): ConsentBrowser {
  const secure = new URL(options.publicUrl).protocol === 'https:';
  // __Host-: over https no sibling host can set it (cookie tossing).
  const name = secure ? `__Host-${COOKIE}` : COOKIE;
  return {
    proof(req, res, uid) {
      const existing = parseCookies(req.headers.cookie ?? '')[name];
      const secret = existing && SECRET.test(existing) ? existing : randomBytes(32).toString('base64url');
      // Lax, not Strict: the browser comes back here from identity's bind address, another site.
      res.cookie(name, secret, { httpOnly: true, secure, sameSite: 'lax', path: '/', maxAge: MAX_AGE_MS });
      return createHmac('sha256', secret).update(uid).digest('base64url');
    },
  };
}

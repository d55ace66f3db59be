/** @jsxRuntime automatic @jsxImportSource preact */
import express, { type Router } from 'express';
import { z } from 'zod';
import { browserAddressOf } from '../client-address';
import type { ConsoleDeps } from '../console-deps';
import { SessionEndedError, TooManyAttemptsError } from '../identity-api';
import { sendPage } from '../pages/layout';
import { LoginPage } from '../pages/login';
import { requireSession, sessionOf } from '../session';

const loginForm = z.object({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1024),
  next: z.string().max(2000).optional(),
});

/** Only a path of this console: never an absolute or protocol-relative URL (open redirect); else the overview. */
export function safeNext(next: string | undefined): string {
  return next && /^\/(?![/\\])/.test(next) && !next.startsWith('/login') ? next : '/overview';
}

export function authRoutes(deps: ConsoleDeps): Router {
  const router = express.Router();
  const { cookies, identity } = deps;

  router.get('/login', (req, res) => {
    const next = safeNext(typeof req.query.next === 'string' ? req.query.next : undefined);
    sendPage(res, <LoginPage csrf={cookies.loginCsrf(req, res)} next={next} />);
  });

  router.post('/login', async (req, res) => {
    const next = safeNext(typeof req.body?.next === 'string' ? req.body.next : undefined);
    const again = (status: number, error: string, email?: string) =>
      sendPage(
        res,
        <LoginPage csrf={cookies.loginCsrf(req, res)} next={next} error={error} email={email} />,
        status,
      );
    if (!cookies.sameOrigin(req) || !cookies.checkLoginCsrf(req)) {
      return again(403, 'This form has expired. Sign in again.');
    }
    const form = loginForm.safeParse(req.body);
    if (!form.success) return again(400, 'Enter your email and password.');
    try {
      const session = await identity.login(form.data.email, form.data.password, browserAddressOf(req));
      cookies.set(res, session.session_token, new Date(session.expires_at));
      res.redirect(303, next);
    } catch (err) {
      // Identity logs both as security events (with the account's fingerprint and the address).
      if (err instanceof SessionEndedError) return again(401, 'Wrong email or password.', form.data.email);
      if (err instanceof TooManyAttemptsError) {
        res.set('Retry-After', String(err.retryAfterSeconds));
        return again(429, err.message, form.data.email);
      }
      throw err;
    }
  });

  router.post('/logout', requireSession(cookies, identity), async (_req, res) => {
    const { token } = sessionOf(res);
    await identity.logout(token).catch((err: unknown) => {
      // Already ended elsewhere: signing out is done either way.
      if (!(err instanceof SessionEndedError)) throw err;
    });
    deps.tools.forget(token);
    cookies.clear(res);
    res.redirect(303, '/login');
  });

  return router;
}

import { UnauthorizedError } from '@svc/errors';
import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import { randomSecret } from '../../ids';
import type { PasswordGuard } from '../../password-guard';
import { decoyPasswordHash, verifyPassword } from '../../passwords';
import { loginBody } from '../../schemas';
import { createSession } from '../../store/sessions';
import { findUserByEmail } from '../../store/users';
import { SESSION_TTL_MS, sha256 } from './session';

/** POST /v1/login: email and password for a session token (the only route without a session). */
export function addLoginRoute(router: Router, ctx: IdentityContext, passwords: PasswordGuard): void {
  router.post('/v1/login', async (req, res) => {
    const body = parseRequest(loginBody, req.body);
    const address = ctx.clientAddress(req);
    const user = await findUserByEmail(ctx.db, body.email);
    // An unknown email is checked (against a decoy) and throttled exactly as a known one.
    const matches = await passwords.check({ kind: 'login', account: body.email, address }, async () => {
      const ok = await verifyPassword(body.password, user?.password_hash ?? (await decoyPasswordHash()));
      return ok && user !== undefined;
    });
    if (!user || !matches) throw new UnauthorizedError('bad_credentials');
    const sessionToken = `svc_ses_${randomSecret(32)}`;
    const now = ctx.clock();
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
    await createSession(ctx.db, { sha256: sha256(sessionToken), userId: user.user_id, expiresAt }, now);
    res.json({ session_token: sessionToken, expires_at: expiresAt.toISOString() });
  });
}

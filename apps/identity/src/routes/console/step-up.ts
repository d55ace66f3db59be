import { UnauthorizedError } from '@svc/errors';
import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import type { PasswordGuard } from '../../password-guard';
import { verifyPassword } from '../../passwords';
import { stepUpBody } from '../../schemas';
import { setStepUp } from '../../store/sessions';
import { getUser } from '../../store/users';
import { STEP_UP_WINDOW_MS, sessionOf } from './session';

/** POST /v1/step-up: the password again, for 5 minutes of what needs it (making a credential). */
export function addStepUpRoute(router: Router, ctx: IdentityContext, passwords: PasswordGuard): void {
  router.post('/v1/step-up', async (req, res) => {
    const { password } = parseRequest(stepUpBody, req.body);
    const address = ctx.clientAddress(req);
    const session = sessionOf(res);
    const user = await getUser(ctx.db, session.userId);
    if (!user) throw new UnauthorizedError('invalid_session');
    // The same counters as the account's sign-in: a stolen session is no way around them.
    const matches = await passwords.check({ kind: 'step_up', account: user.email, address }, () =>
      verifyPassword(password, user.password_hash),
    );
    if (!matches) throw new UnauthorizedError('step_up_failed');
    const until = new Date(ctx.clock().getTime() + STEP_UP_WINDOW_MS);
    await setStepUp(ctx.db, session.sha256, until);
    res.json({ step_up_until: until.toISOString() });
  });
}

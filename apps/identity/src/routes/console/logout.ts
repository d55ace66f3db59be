import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { revokeEverywhere } from '../../invalidation/revoke-everywhere';
import { endSession } from '../../store/sessions';
import { consoleSessionTokenIds } from '../../store/tokens';
import { sessionOf } from './session';

/** POST /v1/logout: ends the session and revokes the tokens the console made for it, everywhere, before answering. */
export function addLogoutRoute(router: Router, ctx: IdentityContext): void {
  router.post('/v1/logout', async (_req, res) => {
    const session = sessionOf(res);
    const tokenIds = await consoleSessionTokenIds(ctx.db, session.sha256);
    await endSession(ctx.db, session.sha256);
    for (const tokenId of tokenIds) await revokeEverywhere(ctx, tokenId);
    res.status(204).end();
  });
}

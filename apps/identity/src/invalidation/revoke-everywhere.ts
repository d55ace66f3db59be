import type { IdentityContext } from '../context';
import { recordInvalidation } from '../store/invalidations';
import { revokeToken } from '../store/tokens';

/**
 * Revokes a token and answers only once it is refused everywhere: the revocation and its
 * invalidation event commit together, then every gateway holding a lease has dropped the token
 * from its cache (or its lease has run out). The very next call with it is a 401 on every gateway.
 */
export async function revokeEverywhere(ctx: IdentityContext, tokenId: string): Promise<Date | undefined> {
  const done = await ctx.db.transaction(async (tx) => {
    const revokedAt = await revokeToken(tx, tokenId, ctx.clock());
    if (!revokedAt) return undefined;
    return { revokedAt, seq: await recordInvalidation(tx, { kind: 'token', token_id: tokenId }) };
  });
  if (!done) return undefined;
  await ctx.invalidations.published(done.seq);
  return done.revokedAt;
}

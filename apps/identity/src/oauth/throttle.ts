import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import type Provider from 'oidc-provider';
import type { IdentityContext } from '../context';
import { claimAttempt, recordSuccess } from '../store/password-throttle';
import { throttleAddress, throttleKeys } from '../throttle/keys';

/**
 * The authorization server's requests that a guesser or a spammer repeats, counted per client
 * address with sign-in's counters and locks (docs/console.md, "Sign-in throttling"): failed token
 * requests (codes, verifiers, refresh tokens) as failed sign-ins of one account from the address
 * (5 free, then 1 s doubling up to 15 minutes), and client registrations, each of which counts,
 * as the address's counter over all accounts (20 an hour free, then 1 s doubling). Counters of
 * their own, so they never lock a person's sign-in from the same address. A request held back is a 429 with Retry-After and an
 * OAuth error body; nothing is looked at.
 */
const THROTTLED: Record<string, 'token' | 'registration'> = {
  'POST /token': 'token',
  'POST /reg': 'registration',
};

export function throttleAuthorizationServer(ctx: IdentityContext, provider: Provider): void {
  const throttled = ctx.metrics.counter(
    'oauth_throttled_total',
    'Authorization server requests refused by the throttle',
    ['endpoint'],
  );
  provider.use(async (koa, next) => {
    const endpoint = THROTTLED[`${koa.method} ${koa.path}`];
    if (!endpoint) return next();
    const where = throttleAddress(ctx.clientAddress(koa.req as unknown as Request));
    const perAddress = throttleKeys(`oauth-${endpoint}/${where}`, `oauth-${endpoint}/${where}`);
    // A registration is no guess at anything: only the address's budget applies to it.
    const keys =
      endpoint === 'token' ? perAddress : { ...perAddress, pair: randomUUID(), account: randomUUID() };
    const claim = await claimAttempt(ctx.db, keys, ctx.clock());
    if ('refused' in claim) {
      const retryAfter = Math.max(1, Math.ceil(claim.refused.waitMs / 1000));
      throttled.inc({ endpoint });
      ctx.logger.warn(
        { security_event: 'oauth_throttled', endpoint, address: where, retry_after_s: retryAfter },
        'authorization server request refused by the throttle',
      );
      koa.status = 429;
      koa.set('Retry-After', String(retryAfter));
      koa.body = {
        error: 'invalid_request',
        error_description: `too many requests from this address; retry in ${retryAfter} s`,
      };
      return;
    }
    await next();
    if (endpoint === 'token' && koa.status < 400) await recordSuccess(ctx.db, keys, ctx.clock());
  });
}

import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { IdentityContext } from '../context';
import { throttleAddress } from '../throttle/keys';
import type { TokenBuckets } from '../throttle/token-bucket';
import type { InteractionLedger } from './interaction-ledger';

export type Endpoint = 'authorize' | 'par' | 'registration' | 'token' | 'document_fetch' | 'other';
export type Scope = 'address' | 'client' | 'total';

export interface ThrottleBuckets {
  authorize: TokenBuckets;
  registration: TokenBuckets;
  tokenFailuresPerAddress: TokenBuckets;
  tokenFailuresPerClient: TokenBuckets;
  documentFetches: TokenBuckets;
  other: TokenBuckets;
}

/** What the throttle's parts share: its buckets and ledger, the clock, and how a refusal is noted. */
export interface ThrottleState {
  buckets: ThrottleBuckets;
  ledger: InteractionLedger;
  now(): number;
  addressOf(koa: KoaContextWithOIDC): string;
  /** A hash of the request's client id (never the id itself as a key), when it names one. */
  clientKeyOf(koa: KoaContextWithOIDC): string | undefined;
  /**
   * Counts and logs a refusal, sets Retry-After, and answers its seconds (at least 1).
   * `scope` is left out of the log line when the refusal has none of its own (document fetches).
   */
  refused(
    koa: KoaContextWithOIDC,
    refusal: { endpoint: Endpoint; scope: Scope; logged?: 'without scope'; message: string },
    retryAfterMs: number,
  ): number;
}

/** Per-request marks the throttle leaves on koa's state (a sign-in's place, a credential's verdict). */
export const stateOf = (koa: KoaContextWithOIDC) => koa.state as Record<symbol, unknown>;

export function throttleState(
  ctx: IdentityContext,
  buckets: ThrottleBuckets,
  ledger: InteractionLedger,
): ThrottleState {
  const throttled = ctx.metrics.counter(
    'oauth_throttled_total',
    'Authorization server requests refused by the throttle',
    ['endpoint', 'scope'],
  );
  // The client's address per express's `trust proxy` (SVC_IDENTITY_TRUSTED_PROXIES). Not the
  // console's X-Svc-Client-Address: no OAuth client speaks for another's address.
  const addressOf = (koa: KoaContextWithOIDC) => {
    const req = koa.req as unknown as Request;
    return throttleAddress(req.ip ?? req.socket.remoteAddress ?? 'unknown');
  };
  return {
    buckets,
    ledger,
    now: () => ctx.clock().getTime(),
    addressOf,
    clientKeyOf(koa) {
      const id = koa.oidc?.client?.clientId;
      return id ? createHash('sha256').update(id).digest('base64url') : undefined;
    },
    refused(koa, { endpoint, scope, logged, message }, retryAfterMs) {
      const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
      throttled.inc({ endpoint, scope });
      ctx.logger.warn(
        {
          security_event: 'oauth_throttled',
          endpoint,
          ...(logged === 'without scope' ? {} : { scope }),
          address: addressOf(koa),
          retry_after_s: retryAfter,
        },
        message,
      );
      koa.set('Retry-After', String(retryAfter));
      return retryAfter;
    },
  };
}

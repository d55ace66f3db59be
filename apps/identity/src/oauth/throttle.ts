import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { IdentityContext } from '../context';
import { type BucketRule, TokenBuckets } from '../throttle/token-bucket';
import { InteractionLedger, type LedgerLimits, type Place } from './interaction-ledger';
import { INTERACTION_TTL_SECONDS } from './oauth-options';
import { errors } from './oidc-provider';
import { CREDENTIAL, PLACE, throttleRequests, tokenBudgets } from './throttle-requests';
import { stateOf, type ThrottleState, throttleState } from './throttle-state';

// The authorization server's anonymous endpoints, throttled per client address (an IPv4 address,
// an IPv6 /64) by token buckets: a burst, then a steady rate, and a client held back waits only
// for its next token, never a growing lock (docs/console.md, "OAuth limits"). Kept in the process,
// apart from sign-in's counters (a person's sign-in from the same address is never held back).
//
// The token endpoint is the exception: hosted MCP connectors refresh for many people from a few
// addresses, so a flood there must not hold back anyone else's refresh. Only failures count
// there, per address and per client, and when either has run dry only requests that present a code
// or refresh token nobody issued (guesses) are refused before the grant is looked at; a request
// presenting one that exists is never held back.

export const OAUTH_RATES = {
  /** /oauth/auth starts and pushed authorization requests: 30 at once, then 6 a minute. */
  authorize: { capacity: 30, perSecond: 0.1 },
  /** Client registrations: 20 an hour (an MCP client registers once per server). */
  registration: { capacity: 20, perSecond: 20 / 3600 },
  /** Failed token requests of an address: 20 at once, then 12 a minute. */
  tokenFailuresPerAddress: { capacity: 20, perSecond: 0.2 },
  /** Failed token requests naming one client, from anywhere: 60 at once, then 1 a second. */
  tokenFailuresPerClient: { capacity: 60, perSecond: 1 },
  /** Client ID Metadata Documents fetched for an address (each is cached at least a minute): 10, then 1 a minute. */
  documentFetches: { capacity: 10, perSecond: 1 / 60 },
  /** Everything else under /oauth (metadata, keys, resume, revocation, binding): 120, then 2 a second. */
  other: { capacity: 120, perSecond: 2 },
} as const satisfies Record<string, BucketRule>;

/** Sign-ins in progress (each a stored interaction for up to 10 minutes). */
export const INTERACTION_LIMITS: LedgerLimits = { perAddress: 20, total: 2_000 };

const GRANT_CREDENTIALS: Record<string, { param: string; model: 'RefreshToken' | 'AuthorizationCode' }> = {
  refresh_token: { param: 'refresh_token', model: 'RefreshToken' },
  authorization_code: { param: 'code', model: 'AuthorizationCode' },
};

type GrantHandler = (koa: KoaContextWithOIDC) => unknown;

export interface AuthorizationServerThrottle {
  /** Installs the per-request middleware (after the provider exists). */
  install(provider: Provider): void;
  /** The interaction `uid` was stored for this request (interactions.url). */
  interactionStarted(koa: KoaContextWithOIDC, uid: string): void;
  /** The adapter destroyed a model (a resumed interaction frees its place). */
  modelDestroyed(model: string, id: string): void;
  /** Wraps a grant type's handler (the token endpoint's throttle). */
  grant(name: string, handler: GrantHandler): GrantHandler;
  /** features.clientIdMetadataDocument.allowFetch: true, or throws a 429. */
  allowDocumentFetch(koa: KoaContextWithOIDC | undefined): boolean;
}

export function authorizationServerThrottle(
  ctx: IdentityContext,
  limits: LedgerLimits = INTERACTION_LIMITS,
): AuthorizationServerThrottle {
  const t = throttleState(
    ctx,
    {
      authorize: new TokenBuckets(OAUTH_RATES.authorize),
      registration: new TokenBuckets(OAUTH_RATES.registration),
      tokenFailuresPerAddress: new TokenBuckets(OAUTH_RATES.tokenFailuresPerAddress),
      tokenFailuresPerClient: new TokenBuckets(OAUTH_RATES.tokenFailuresPerClient),
      documentFetches: new TokenBuckets(OAUTH_RATES.documentFetches),
      other: new TokenBuckets(OAUTH_RATES.other),
    },
    new InteractionLedger(limits, INTERACTION_TTL_SECONDS * 1000),
  );
  return {
    install(provider) {
      const middleware = throttleRequests(t);
      provider.use((koa, next) => middleware(koa as unknown as KoaContextWithOIDC, next));
    },

    interactionStarted(koa, uid) {
      const place = stateOf(koa)[PLACE] as Place | undefined;
      if (place) t.ledger.confirm(place, uid);
      else t.ledger.track(t.addressOf(koa), uid, Date.now());
    },

    modelDestroyed(model, id) {
      if (model === 'Interaction') t.ledger.end(id);
    },

    grant: (name, handler) => throttledGrant(t, name, handler),

    allowDocumentFetch(koa) {
      // Outside a request (the consent page reading a client it already fetched): no address to count.
      if (!koa) return true;
      const taken = t.buckets.documentFetches.take(t.addressOf(koa), t.now());
      if (taken.ok) return true;
      const retryAfter = t.refused(
        koa,
        {
          endpoint: 'document_fetch',
          scope: 'address',
          logged: 'without scope',
          message: 'client document fetch refused by the throttle',
        },
        taken.retryAfterMs,
      );
      throw new errors.InvalidRequest(`too many client documents fetched; retry in ${retryAfter} s`, 429);
    },
  };
}

/**
 * A grant type's handler behind the token endpoint's throttle: a request presenting a code or
 * refresh token that exists is never held back; one presenting a guess is refused while its
 * address's or client's failure budget is dry.
 */
function throttledGrant(t: ThrottleState, name: string, handler: GrantHandler): GrantHandler {
  const credential = GRANT_CREDENTIALS[name];
  if (!credential) return handler;
  return async (koa) => {
    const value = (koa.oidc.params as Record<string, unknown> | undefined)?.[credential.param];
    const { provider } = koa.oidc;
    const find = (v: string) =>
      credential.model === 'RefreshToken'
        ? provider.RefreshToken.find(v)
        : provider.AuthorizationCode.find(v);
    const known = typeof value === 'string' && (await find(value).catch(() => undefined)) !== undefined;
    stateOf(koa)[CREDENTIAL] = known ? 'known' : 'unknown';
    if (!known) {
      const refused = tokenBudgets(t, koa, 'peek');
      if (refused) {
        const retryAfter = t.refused(
          koa,
          {
            endpoint: 'token',
            scope: refused.scope,
            message: 'token request with an unknown credential refused by the throttle',
          },
          refused.retryAfterMs,
        );
        throw new errors.InvalidRequest(`too many failed token requests; retry in ${retryAfter} s`, 429);
      }
    }
    return handler(koa);
  };
}

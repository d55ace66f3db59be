import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { IdentityContext } from '../context';
import { throttleAddress } from '../throttle/keys';
import { type BucketRule, type Take, TokenBuckets } from '../throttle/token-bucket';
import { sendErrorPage } from './error-page';
import { InteractionLedger, type LedgerLimits, type Place } from './interaction-ledger';
import { INTERACTION_TTL_SECONDS } from './oauth-options';
import { errors } from './oidc-provider';

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

type Endpoint = 'authorize' | 'par' | 'registration' | 'token' | 'document_fetch' | 'other';
type Scope = 'address' | 'client' | 'total';

const PLACE = Symbol('interaction place');
const CREDENTIAL = Symbol('token credential');
const GRANT_CREDENTIALS: Record<string, { param: string; model: 'RefreshToken' | 'AuthorizationCode' }> = {
  refresh_token: { param: 'refresh_token', model: 'RefreshToken' },
  authorization_code: { param: 'code', model: 'AuthorizationCode' },
};

type GrantHandler = (koa: KoaContextWithOIDC) => unknown;
type State = Record<symbol, unknown>;

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
  const buckets = {
    authorize: new TokenBuckets(OAUTH_RATES.authorize),
    registration: new TokenBuckets(OAUTH_RATES.registration),
    tokenFailuresPerAddress: new TokenBuckets(OAUTH_RATES.tokenFailuresPerAddress),
    tokenFailuresPerClient: new TokenBuckets(OAUTH_RATES.tokenFailuresPerClient),
    documentFetches: new TokenBuckets(OAUTH_RATES.documentFetches),
    other: new TokenBuckets(OAUTH_RATES.other),
  };
  const ledger = new InteractionLedger(limits, INTERACTION_TTL_SECONDS * 1000);
  const throttled = ctx.metrics.counter(
    'oauth_throttled_total',
    'Authorization server requests refused by the throttle',
    ['endpoint', 'scope'],
  );
  const now = () => ctx.clock().getTime();
  // The client's address per express's `trust proxy` (SVC_IDENTITY_TRUSTED_PROXIES). Not the
  // console's X-Svc-Client-Address: no OAuth client speaks for another's address.
  const addressOf = (koa: KoaContextWithOIDC) => {
    const req = koa.req as unknown as Request;
    return throttleAddress(req.ip ?? req.socket.remoteAddress ?? 'unknown');
  };
  const clientKeyOf = (koa: KoaContextWithOIDC) => {
    const id = koa.oidc?.client?.clientId;
    return id ? createHash('sha256').update(id).digest('base64url') : undefined;
  };
  const stateOf = (koa: KoaContextWithOIDC) => koa.state as State;

  /** Answers 429 (503 when everyone's room is full) with Retry-After, as a page or OAuth JSON. */
  function refuse(koa: KoaContextWithOIDC, endpoint: Endpoint, scope: Scope, retryAfterMs: number): void {
    const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
    throttled.inc({ endpoint, scope });
    ctx.logger.warn(
      {
        security_event: 'oauth_throttled',
        endpoint,
        scope,
        address: addressOf(koa),
        retry_after_s: retryAfter,
      },
      'authorization server request refused by the throttle',
    );
    const status = scope === 'total' ? 503 : 429;
    const out =
      scope === 'total'
        ? {
            error: 'temporarily_unavailable',
            error_description: `too many sign-ins in progress; retry in ${retryAfter} s`,
          }
        : {
            error: 'invalid_request',
            error_description: `too many requests from this address; retry in ${retryAfter} s`,
          };
    koa.set('Retry-After', String(retryAfter));
    if (endpoint === 'authorize') {
      sendErrorPage(koa, out, status);
      return;
    }
    koa.status = status;
    koa.body = out;
  }

  /** The token endpoint's failure budgets of a request: its address's, its client's. */
  function tokenBudgets(koa: KoaContextWithOIDC, use: 'peek' | 'take') {
    const at = now();
    const client = clientKeyOf(koa);
    const checks: [Scope, Take][] = [['address', buckets.tokenFailuresPerAddress[use](addressOf(koa), at)]];
    if (client) checks.push(['client', buckets.tokenFailuresPerClient[use](client, at)]);
    for (const [scope, take] of checks) if (!take.ok) return { scope, retryAfterMs: take.retryAfterMs };
    return undefined;
  }

  /** Counts a failed token request; one that was no known credential's, past a budget, becomes a 429. */
  function countTokenFailure(koa: KoaContextWithOIDC): void {
    const refused = tokenBudgets(koa, 'take');
    if (refused && stateOf(koa)[CREDENTIAL] !== 'known')
      refuse(koa, 'token', refused.scope, refused.retryAfterMs);
  }

  function endpointOf(koa: KoaContextWithOIDC): Endpoint {
    const route = `${koa.method} ${koa.path}`;
    if (route === 'GET /auth' || route === 'POST /auth') return 'authorize';
    if (route === 'POST /request') return 'par';
    if (route === 'POST /reg') return 'registration';
    if (route === 'POST /token') return 'token';
    return 'other';
  }

  return {
    install(provider) {
      provider.use(async (koaContext, next) => {
        const koa = koaContext as unknown as KoaContextWithOIDC;
        const endpoint = endpointOf(koa);
        if (endpoint === 'token') {
          await next();
          if (koa.status >= 400 && koa.status !== 429) countTokenFailure(koa);
          return;
        }
        const address = addressOf(koa);
        const bucket =
          endpoint === 'authorize' || endpoint === 'par'
            ? buckets.authorize
            : endpoint === 'registration'
              ? buckets.registration
              : buckets.other;
        const taken = bucket.take(address, now());
        if (!taken.ok) return refuse(koa, endpoint, 'address', taken.retryAfterMs);
        if (endpoint !== 'authorize') return next();
        // A start takes a place before oidc-provider stores anything, given back unless used.
        const admission = ledger.admit(address, Date.now());
        if (!admission.ok) return refuse(koa, endpoint, admission.scope, admission.retryAfterMs);
        stateOf(koa)[PLACE] = admission.place;
        try {
          await next();
        } finally {
          ledger.release(admission.place);
        }
      });
    },

    interactionStarted(koa, uid) {
      const place = stateOf(koa)[PLACE] as Place | undefined;
      if (place) ledger.confirm(place, uid);
      else ledger.track(addressOf(koa), uid, Date.now());
    },

    modelDestroyed(model, id) {
      if (model === 'Interaction') ledger.end(id);
    },

    grant(name, handler) {
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
          const refused = tokenBudgets(koa, 'peek');
          if (refused) {
            const retryAfter = Math.max(1, Math.ceil(refused.retryAfterMs / 1000));
            throttled.inc({ endpoint: 'token', scope: refused.scope });
            ctx.logger.warn(
              {
                security_event: 'oauth_throttled',
                endpoint: 'token',
                scope: refused.scope,
                address: addressOf(koa),
                retry_after_s: retryAfter,
              },
              'token request with an unknown credential refused by the throttle',
            );
            koa.set('Retry-After', String(retryAfter));
            throw new errors.InvalidRequest(`too many failed token requests; retry in ${retryAfter} s`, 429);
          }
        }
        return handler(koa);
      };
    },

    allowDocumentFetch(koa) {
      // Outside a request (the consent page reading a client it already fetched): no address to count.
      if (!koa) return true;
      const taken = buckets.documentFetches.take(addressOf(koa), now());
      if (taken.ok) return true;
      const retryAfter = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
      throttled.inc({ endpoint: 'document_fetch', scope: 'address' });
      ctx.logger.warn(
        {
          security_event: 'oauth_throttled',
          endpoint: 'document_fetch',
          address: addressOf(koa),
          retry_after_s: retryAfter,
        },
        'client document fetch refused by the throttle',
      );
      koa.set('Retry-After', String(retryAfter));
      throw new errors.InvalidRequest(`too many client documents fetched; retry in ${retryAfter} s`, 429);
    },
  };
}

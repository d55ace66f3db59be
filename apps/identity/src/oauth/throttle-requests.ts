import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Take } from '../throttle/token-bucket';
import { sendErrorPage } from './error-page';
import { type Endpoint, type Scope, stateOf, type ThrottleState } from './throttle-state';

export const PLACE = Symbol('interaction place');
export const CREDENTIAL = Symbol('token credential');

type Middleware = (koa: KoaContextWithOIDC, next: () => Promise<unknown>) => Promise<unknown>;

/**
 * The provider's per-request throttle: a token from the endpoint's bucket per client address, a
 * place in the sign-in ledger for an authorization start, and for the token endpoint only a count
 * of its failures (counted after the answer).
 */
export function throttleRequests(t: ThrottleState): Middleware {
  return async (koa, next) => {
    const endpoint = endpointOf(koa);
    if (endpoint === 'token') {
      await next();
      if (koa.status >= 400 && koa.status !== 429) countTokenFailure(t, koa);
      return;
    }
    const address = t.addressOf(koa);
    const bucket =
      endpoint === 'authorize' || endpoint === 'par'
        ? t.buckets.authorize
        : endpoint === 'registration'
          ? t.buckets.registration
          : t.buckets.other;
    const taken = bucket.take(address, t.now());
    if (!taken.ok) return refuse(t, koa, endpoint, 'address', taken.retryAfterMs);
    if (endpoint !== 'authorize') return next();
    // A start takes a place before oidc-provider stores anything, given back unless used.
    const admission = t.ledger.admit(address, Date.now());
    if (!admission.ok) return refuse(t, koa, endpoint, admission.scope, admission.retryAfterMs);
    stateOf(koa)[PLACE] = admission.place;
    try {
      await next();
    } finally {
      t.ledger.release(admission.place);
    }
  };
}

function endpointOf(koa: KoaContextWithOIDC): Endpoint {
  const route = `${koa.method} ${koa.path}`;
  if (route === 'GET /auth' || route === 'POST /auth') return 'authorize';
  if (route === 'POST /request') return 'par';
  if (route === 'POST /reg') return 'registration';
  if (route === 'POST /token') return 'token';
  return 'other';
}

/** The token endpoint's failure budgets of a request: its address's, its client's. */
export function tokenBudgets(t: ThrottleState, koa: KoaContextWithOIDC, use: 'peek' | 'take') {
  const at = t.now();
  const client = t.clientKeyOf(koa);
  const checks: [Scope, Take][] = [['address', t.buckets.tokenFailuresPerAddress[use](t.addressOf(koa), at)]];
  if (client) checks.push(['client', t.buckets.tokenFailuresPerClient[use](client, at)]);
  for (const [scope, take] of checks) if (!take.ok) return { scope, retryAfterMs: take.retryAfterMs };
  return undefined;
}

/** Counts a failed token request; one that was no known credential's, past a budget, becomes a 429. */
function countTokenFailure(t: ThrottleState, koa: KoaContextWithOIDC): void {
  const refused = tokenBudgets(t, koa, 'take');
  if (refused && stateOf(koa)[CREDENTIAL] !== 'known')
    refuse(t, koa, 'token', refused.scope, refused.retryAfterMs);
}

/** Answers 429 (503 when everyone's room is full) with Retry-After, as a page or OAuth JSON. */
function refuse(
  t: ThrottleState,
  koa: KoaContextWithOIDC,
  endpoint: Endpoint,
  scope: Scope,
  retryAfterMs: number,
): void {
  const message = 'authorization server request refused by the throttle';
  const retryAfter = t.refused(koa, { endpoint, scope, message }, retryAfterMs);
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
  if (endpoint === 'authorize') {
    sendErrorPage(koa, out, status);
    return;
  }
  koa.status = status;
  koa.body = out;
}

import type { Metrics } from '@svc/metrics';
import { RateLimitedError } from '@svc/tool-kit';
import type { RequestHandler } from 'express';
import { principalOf } from './authenticate';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface TokenBucketLimiter {
  /** Takes one request from the key's bucket; returns 0 when allowed, else seconds to wait. */
  take(key: string): number;
}

/**
 * A token bucket per access token: `perMinute` requests of burst, refilled continuously at
 * perMinute/60 per second. In memory, per gateway instance (with N instances behind a balancer
 * the effective limit is at most N times this). Full buckets are dropped to bound memory.
 */
export function createTokenBucketLimiter(perMinute: number, now: () => number): TokenBucketLimiter {
  const buckets = new Map<string, Bucket>();
  const perMs = perMinute / 60_000;
  let lastSweep = now();

  function sweep(at: number) {
    if (at - lastSweep < 60_000) return;
    lastSweep = at;
    for (const [key, b] of buckets) {
      if (b.tokens + (at - b.updatedAt) * perMs >= perMinute) buckets.delete(key);
    }
  }

  return {
    take(key) {
      const at = now();
      sweep(at);
      const b = buckets.get(key) ?? { tokens: perMinute, updatedAt: at };
      b.tokens = Math.min(perMinute, b.tokens + Math.max(0, at - b.updatedAt) * perMs);
      b.updatedAt = at;
      buckets.set(key, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
    },
  };
}

/** Pipeline step 3: after authentication, keyed by token_id. */
export function rateLimit(limiter: TokenBucketLimiter, metrics: Metrics): RequestHandler {
  const limited = metrics.counter(
    'gateway_rate_limited_total',
    'Requests refused by the per-token rate limit',
  );
  return (_req, res, next) => {
    const principal = principalOf(res);
    const wait = limiter.take(principal.tokenId ?? `project:${principal.projectId}`);
    if (wait === 0) {
      next();
      return;
    }
    limited.inc();
    next(new RateLimitedError('Too many requests for this token; retry later.', wait));
  };
}

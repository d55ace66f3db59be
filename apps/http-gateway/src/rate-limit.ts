import { RateLimitedError } from '@svc/errors';
import type { Metrics } from '@svc/metrics';
import type { Request, RequestHandler } from 'express';
import { principalOf } from './authenticate';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface TokenBucketLimiter {
  /** Whether `cost` requests fit in the key's bucket now (nothing is taken). */
  peek(key: string, cost: number): number;
  /** Takes `cost` requests from the key's bucket; 0 when allowed, else seconds to wait. */
  take(key: string, cost?: number): number;
  /** Buckets held now (a full bucket is dropped). */
  readonly size: number;
}

/**
 * A token bucket per key: `perMinute` requests of burst, refilled continuously at perMinute/60
 * per second. In memory, per gateway instance (with N instances behind a balancer the effective
 * limit is at most N times this). Full buckets are dropped to bound memory.
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

  function refreshed(key: string, at: number): Bucket {
    const b = buckets.get(key) ?? { tokens: perMinute, updatedAt: at };
    b.tokens = Math.min(perMinute, b.tokens + Math.max(0, at - b.updatedAt) * perMs);
    b.updatedAt = at;
    return b;
  }

  function wait(b: Bucket, cost: number): number {
    if (b.tokens >= cost) return 0;
    // A cost larger than the whole bucket can never fit: the caller must send less at once.
    return Math.max(1, Math.ceil((Math.min(cost, perMinute) - b.tokens) / perMs / 1000));
  }

  return {
    peek(key, cost) {
      return wait(refreshed(key, now()), cost);
    },
    take(key, cost = 1) {
      const at = now();
      sweep(at);
      const b = refreshed(key, at);
      buckets.set(key, b);
      const w = wait(b, cost);
      if (w === 0) b.tokens -= cost;
      return w;
    },
    get size() {
      return buckets.size;
    },
  };
}

export interface LimitsConfig {
  /** Calls per minute for one token. */
  perTokenPerMinute: number;
  /** Calls per minute for one project, all its tokens together. */
  perProjectPerMinute: number;
  /** Calls of one token in progress at once. */
  concurrentPerToken: number;
  /** Calls of one project in progress at once. */
  concurrentPerProject: number;
  /**
   * Calls of one org, all its projects together, in progress at once: below the connections to a
   * backend (128 each), so one org's projects cannot hold every one of them.
   */
  concurrentPerOrg: number;
}

/** How many calls a request makes: one, or each message of an (older protocol's) JSON-RPC batch. */
export type CostOf = (body: unknown) => number;

const oneCall: CostOf = () => 1;

/**
 * Pipeline step after authentication (and after the body is read, so a JSON-RPC batch counts
 * each of its calls): a rate per token and per project, and a bound on calls in progress per token,
 * per project and per org. Over any of them: 429 with Retry-After, nothing done. Counters and gauges make
 * the state visible (gateway_limit_refusals_total by scope and kind, gateway_calls_in_progress,
 * gateway_rate_buckets by scope).
 */
export function createLimits(config: LimitsConfig, now: () => number, metrics: Metrics) {
  const byToken = createTokenBucketLimiter(config.perTokenPerMinute, now);
  const byProject = createTokenBucketLimiter(config.perProjectPerMinute, now);
  const inFlight = {
    token: new Map<string, number>(),
    project: new Map<string, number>(),
    org: new Map<string, number>(),
  };
  const refusals = metrics.counter('gateway_limit_refusals_total', 'Calls refused by a limit', [
    'scope',
    'kind',
  ]);
  // Bound once: the middleware runs on every call (labels per call cost a key built each time).
  const progress = metrics.holding('gateway_calls_in_progress', 'Tool calls being served now').bind({});
  const bucketGauge = metrics.gauge('gateway_rate_buckets', 'Rate-limit buckets held, by scope', ['scope']);
  const tokenBuckets = bucketGauge.bind({ scope: 'token' });
  const projectBuckets = bucketGauge.bind({ scope: 'project' });
  let total = 0;

  const adjust = (map: Map<string, number>, key: string, by: number) => {
    const n = (map.get(key) ?? 0) + by;
    if (n <= 0) map.delete(key);
    else map.set(key, n);
  };

  function refuse(
    scope: 'token' | 'project' | 'org',
    kind: 'rate' | 'concurrency',
    wait: number,
  ): RateLimitedError {
    refusals.inc({ scope, kind });
    const whose = { token: 'this token', project: 'this project', org: 'this organization' }[scope];
    return new RateLimitedError(
      kind === 'rate'
        ? `Too many calls for ${whose}; retry later.`
        : `Too many calls of ${whose} in progress; retry when one has finished.`,
      wait,
    );
  }

  /**
   * `concurrency: false` (or a predicate answering false) for requests that are not calls (a legacy
   * MCP session's GET stream and a modern client's listen stream stay open as long as the client
   * likes; a DELETE ends a session): they count against the rates only.
   */
  function middleware(
    costOf: CostOf = oneCall,
    options: { concurrency?: boolean | ((req: Request) => boolean) } = {},
  ): RequestHandler {
    return (req, res, next) => {
      const bounded =
        typeof options.concurrency === 'function' ? options.concurrency(req) : options.concurrency !== false;
      const principal = principalOf(res);
      const tokenKey = principal.tokenId ?? `local:${principal.projectId}`;
      const projectKey = principal.projectId;
      const orgKey = principal.orgId ?? `project:${principal.projectId}`;
      const cost = Math.max(1, costOf(req.body));
      if (bounded && (inFlight.token.get(tokenKey) ?? 0) + cost > config.concurrentPerToken) {
        next(refuse('token', 'concurrency', 1));
        return;
      }
      if (bounded && (inFlight.project.get(projectKey) ?? 0) + cost > config.concurrentPerProject) {
        next(refuse('project', 'concurrency', 1));
        return;
      }
      if (bounded && (inFlight.org.get(orgKey) ?? 0) + cost > config.concurrentPerOrg) {
        next(refuse('org', 'concurrency', 1));
        return;
      }
      // Both buckets must have room before either is charged.
      const projectWait = byProject.peek(projectKey, cost);
      if (projectWait > 0) {
        next(refuse('project', 'rate', projectWait));
        return;
      }
      const tokenWait = byToken.take(tokenKey, cost);
      if (tokenWait > 0) {
        next(refuse('token', 'rate', tokenWait));
        return;
      }
      byProject.take(projectKey, cost);
      tokenBuckets.set(byToken.size);
      projectBuckets.set(byProject.size);
      if (!bounded) {
        next();
        return;
      }
      adjust(inFlight.token, tokenKey, cost);
      adjust(inFlight.project, projectKey, cost);
      adjust(inFlight.org, orgKey, cost);
      total += cost;
      progress.set(total);
      res.once('close', () => {
        adjust(inFlight.token, tokenKey, -cost);
        adjust(inFlight.project, projectKey, -cost);
        adjust(inFlight.org, orgKey, -cost);
        total -= cost;
        progress.set(total);
      });
      next();
    };
  }

  return { middleware };
}

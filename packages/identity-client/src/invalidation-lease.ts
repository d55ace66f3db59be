import type { Metrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import type { InvalidationTarget } from './invalidation-events';

/**
 * Failures in a row before one is logged at warn. A single failed acknowledgement or a dropped
 * stream costs only cache hits (nothing is trusted without a lease), and a busy machine produces
 * them now and then: logged at info. Failures that persist are an operator's concern.
 */
export const PERSISTENT_FAILURES = 3;

/** At info while failures are isolated, at warn once `count` of them came in a row. */
export const logFailure = (logger: Logger, count: number, err: unknown, message: string) =>
  count >= PERSISTENT_FAILURES
    ? logger.warn({ err, in_a_row: count }, message)
    : logger.info({ err, in_a_row: count }, message);

/** The cache's lease and generation: what may be trusted, and whether anything changed meanwhile. */
export interface Lease {
  /** Changes whenever anything may have been evicted. */
  readonly generation: number;
  /** One event evicted what it names. */
  evicted(): void;
  /** Everything cached is forgotten. */
  reset(reason: string): void;
  /** The lease ends now (forgetting everything when one was held). */
  drop(reason: string): void;
  /** An acknowledgement answered: the lease lasts until `until`, or longer if it already did. */
  extend(until: number): void;
  /** True while the lease holds (an expired one is dropped). */
  valid(): boolean;
  /** True while the lease holds, without dropping an expired one. */
  held(): boolean;
}

export function createLease(deps: {
  target: InvalidationTarget;
  metrics: Metrics;
  now: () => number;
}): Lease {
  const { target, now } = deps;
  const leaseGauge = deps.metrics.gauge(
    'token_cache_lease',
    'Whether the token cache holds a lease (1) or not (0)',
  );
  const resets = deps.metrics.counter('token_cache_resets_total', 'Token cache emptied, by reason', [
    'reason',
  ]);
  let leaseUntil = 0;
  let wasValid = false;
  let generation = 0;

  const lease: Lease = {
    get generation() {
      return generation;
    },
    evicted: () => void generation++,
    reset(reason) {
      generation++;
      target.clear();
      resets.inc({ reason });
    },
    drop(reason) {
      if (leaseUntil > 0 || wasValid) lease.reset(reason);
      leaseUntil = 0;
      wasValid = false;
      leaseGauge.set({}, 0);
    },
    extend(until) {
      leaseUntil = Math.max(leaseUntil, until);
      wasValid = true;
      leaseGauge.set({}, 1);
    },
    valid() {
      if (leaseUntil > now()) return true;
      if (wasValid) lease.drop('lease_ran_out');
      return false;
    },
    held: () => leaseUntil > now(),
  };
  return lease;
}

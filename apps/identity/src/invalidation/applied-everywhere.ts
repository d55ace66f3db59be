import type { Metrics } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import type { Logger } from '@svc/tool-kit';
import { laggingSubscribers } from '../store/invalidations';
import type { EventFeed } from './event-feed';
import type { InvalidationTiming } from './timing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A revoke's wait, after the transaction that recorded event `seq` committed: the event is sent to
 * the local streams, then this resolves once every gateway holding a lease has acknowledged event `seq`, or, past a lease and
 * two heartbeats, once the leases of those that did not have been ended and a whole lease has gone by.
 */
export function appliedEverywhere(deps: {
  db: Postgres;
  logger: Logger;
  metrics: Metrics;
  timing: InvalidationTiming;
  feed: EventFeed;
}): (seq: number) => Promise<void> {
  const { db, logger, timing } = deps;
  const waits = deps.metrics.histogram(
    'identity_invalidation_wait_seconds',
    'Time a revoke waited for the gateways to apply it',
  );
  const forced = deps.metrics.counter(
    'identity_invalidation_forced_expiries_total',
    'Leases ended because a gateway did not apply an event in time',
  );
  return async (seq) => {
    const started = performance.now();
    await deps.feed
      .scan()
      .catch((err) => logger.warn({ err }, 'invalidation scan failed; heartbeats will retry'));
    const deadline = Date.now() + timing.leaseMs + 2 * timing.heartbeatMs;
    while ((await laggingSubscribers(db, seq)) > 0) {
      if (Date.now() > deadline) {
        // A gateway keeps its lease but does not apply the event: stop renewing it, then wait a
        // whole lease, after which it cannot be trusting its cache any more whatever it thinks.
        const { rows } = await db.query<{ n: number }>(
          `WITH ended AS (UPDATE invalidation_subscribers SET lease_until = clock_timestamp()
             WHERE acked_seq < $1 AND lease_until > clock_timestamp() RETURNING 1)
           SELECT count(*) AS n FROM ended`,
          [seq],
        );
        forced.inc({}, Number(rows[0]?.n ?? 0));
        logger.warn({ seq }, 'gateways did not apply an invalidation in time; their leases were ended');
        await sleep(timing.leaseMs);
        break;
      }
      await sleep(timing.pollMs);
    }
    waits.observe({}, (performance.now() - started) / 1000);
  };
}

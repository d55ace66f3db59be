import type { Logger } from '@svc/tool-kit';
import { type Lease, logFailure } from './invalidation-lease';

/** The subscription as the stream last described it. */
export interface Subscription {
  subscriberId: string | undefined;
  lastSeq: number;
  leaseMs: number;
}

/**
 * Acknowledges the last seq seen, one request at a time (a request wanted meanwhile is sent after
 * it, with the newest seq). The lease starts when an acknowledgement is *sent* and lasts the lease
 * identity grants minus a safety margin, so it ends before identity, which counts from when the
 * acknowledgement *arrived*, stops waiting for us.
 */
export function createAcknowledger(deps: {
  base: string;
  internalSecret: string;
  now: () => number;
  logger: Logger;
  subscription: Subscription;
  lease: Lease;
  /** identity stopped waiting for us (410): subscribe again. */
  resubscribe: () => void;
}): () => Promise<void> {
  const { subscription: sub, lease, now } = deps;
  let acking = false;
  let ackWanted = false;
  let ackFailures = 0;
  return async () => {
    ackWanted = true;
    if (acking) return;
    acking = true;
    try {
      while (ackWanted && sub.subscriberId) {
        ackWanted = false;
        const id = sub.subscriberId;
        const sentAt = now();
        const res = await fetch(`${deps.base}/internal/v1/invalidations/ack`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-internal-secret': deps.internalSecret },
          body: JSON.stringify({ subscriber_id: id, seq: sub.lastSeq }),
          signal: AbortSignal.timeout(Math.max(500, sub.leaseMs / 2)),
        });
        await res.arrayBuffer();
        ackFailures = 0;
        if (res.status === 200 && id === sub.subscriberId) {
          // The safety margin covers clock rate differences and the time the answer spent in flight.
          const safety = Math.min(1000, sub.leaseMs / 5);
          lease.extend(sentAt + sub.leaseMs - safety);
        } else if (res.status === 410) {
          // identity stopped waiting for us: subscribe again from an empty cache.
          lease.drop('lease_expired');
          deps.resubscribe();
        }
      }
    } catch (err) {
      logFailure(
        deps.logger,
        ++ackFailures,
        err,
        'invalidation acknowledgement failed; the lease will run out',
      );
    } finally {
      acking = false;
    }
  };
}

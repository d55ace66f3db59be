import { randomUUID } from 'node:crypto';
import type { Metrics } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import type { Logger } from '@svc/tool-kit';
import type { Response } from 'express';
import { addSubscriber, removeSubscriber, renewLease } from '../store/invalidations';
import { appliedEverywhere } from './applied-everywhere';
import { createEventFeed, type Stream, sse } from './event-feed';
import { createFeedRunner } from './feed-runner';
import { DEFAULT_INVALIDATION_TIMING, type InvalidationTiming } from './timing';

// The identity side of the gateways' token caches (docs/decisions.md, "Token cache"): a stream of
// invalidation events per subscribed gateway, heartbeats that carry the last event's seq, leases
// renewed by acknowledgements, and a revoke that returns only once every gateway holding a lease
// has applied it (or its lease has run out).

export interface InvalidationHub {
  /** Answers GET /internal/v1/invalidations: an SSE stream, hello first. */
  subscribe(res: Response): Promise<void>;
  /** A gateway applied every event up to `seq`; false when its lease had already run out. */
  acknowledge(subscriberId: string, seq: number): Promise<boolean>;
  /** Call after the transaction that recorded event `seq` committed; resolves when it is safe. */
  published(seq: number): Promise<void>;
  readonly timing: InvalidationTiming;
  /** Local streams (for tests and metrics). */
  streamCount(): number;
  /** Ends every stream and stops listening (a restart of identity, as gateways see it). */
  close(): Promise<void>;
}

export function createInvalidationHub(deps: {
  db: Postgres;
  logger: Logger;
  metrics: Metrics;
  timing?: Partial<InvalidationTiming>;
}): InvalidationHub {
  const timing = { ...DEFAULT_INVALIDATION_TIMING, ...deps.timing };
  const { db, logger } = deps;
  const feed = createEventFeed(db);
  const runner = createFeedRunner({ db, logger, timing, feed });
  const { streams } = feed;

  return {
    timing,
    streamCount: () => streams.size,

    async subscribe(res) {
      const stream: Stream = { id: randomUUID(), res, ready: false };
      res.status(200).set({
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.flushHeaders();
      res.socket?.setKeepAlive(true);
      streams.set(stream.id, stream);
      res.on('close', () => {
        streams.delete(stream.id);
        void removeSubscriber(db, stream.id).catch(() => {});
        void runner.stopIfIdle();
      });
      try {
        await runner.ensureRunning();
        // At the log's head: no event can be sent between the hello's seq and the first event
        // this stream receives.
        await feed.atHead(async (seq) => {
          await addSubscriber(db, stream.id, seq, timing.leaseMs);
          res.write(
            sse('hello', {
              subscriber_id: stream.id,
              seq,
              lease_ms: timing.leaseMs,
              heartbeat_ms: timing.heartbeatMs,
            }),
          );
          stream.ready = true;
        });
      } catch (err) {
        logger.error({ err }, 'invalidation subscription failed');
        res.end();
      }
    },

    acknowledge: (subscriberId, seq) => renewLease(db, subscriberId, seq, timing.leaseMs),

    published: appliedEverywhere({ db, logger, metrics: deps.metrics, timing, feed }),

    async close() {
      for (const s of streams.values()) s.res.end();
      streams.clear();
      await runner.stopIfIdle();
    },
  };
}

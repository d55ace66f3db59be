import type { Postgres } from '@svc/postgres';
import type { Logger } from '@svc/tool-kit';
import { INVALIDATION_CHANNEL, pruneInvalidations } from '../store/invalidations';
import type { EventFeed } from './event-feed';
import type { InvalidationTiming } from './timing';

/** The feed's heartbeat timer and its LISTEN on the log: they run only while a gateway is subscribed here. */
export interface FeedRunner {
  ensureRunning(): Promise<void>;
  stopIfIdle(): Promise<void>;
}

export function createFeedRunner(deps: {
  db: Postgres;
  logger: Logger;
  timing: InvalidationTiming;
  feed: EventFeed;
}): FeedRunner {
  const { db, logger, timing, feed } = deps;
  let running: Promise<void> | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let beats = 0;

  async function beat(): Promise<void> {
    try {
      await feed.atHead((seq) => feed.send('heartbeat', { seq, lease_ms: timing.leaseMs }));
      if (++beats % 60 === 0) await pruneInvalidations(db);
    } catch (err) {
      // The streams stay open: without heartbeats the gateways' leases run out and they stop
      // trusting their caches, which is the safe outcome of an unreadable log.
      logger.warn({ err }, 'invalidation heartbeat failed');
    }
  }

  return {
    async ensureRunning() {
      running ??= (async () => {
        unlisten = await db.listen(INVALIDATION_CHANNEL, () => void feed.scan().catch(() => {}));
        heartbeat = setInterval(() => void beat(), timing.heartbeatMs);
        heartbeat.unref();
      })();
      await running;
    },

    async stopIfIdle() {
      if (feed.streams.size > 0 || !running) return;
      const wasRunning = running;
      running = undefined;
      await wasRunning.catch(() => {});
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
      await unlisten?.().catch(() => {});
      unlisten = undefined;
    },
  };
}

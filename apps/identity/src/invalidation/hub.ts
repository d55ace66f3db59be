import { randomUUID } from 'node:crypto';
import type { Metrics } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import type { Logger } from '@svc/tool-kit';
import type { Response } from 'express';
import {
  addSubscriber,
  eventsAfter,
  headSeq,
  INVALIDATION_CHANNEL,
  type InvalidationEvent,
  laggingSubscribers,
  pruneInvalidations,
  removeSubscriber,
  renewLease,
} from '../store/invalidations';

// The identity side of the gateways' token caches (docs/decisions.md, "Token cache"): a stream of
// invalidation events per subscribed gateway, heartbeats that carry the last event's seq, leases
// renewed by acknowledgements, and a revoke that returns only once every gateway holding a lease
// has applied it (or its lease has run out).

export interface InvalidationTiming {
  /** How often each stream gets a heartbeat (and the log is re-read, whatever NOTIFY did). */
  heartbeatMs: number;
  /** How long an acknowledgement keeps a gateway's lease alive, on identity's clock. */
  leaseMs: number;
  /** How often a waiting revoke looks at the acknowledgements. */
  pollMs: number;
}

export const DEFAULT_INVALIDATION_TIMING: InvalidationTiming = {
  heartbeatMs: 1000,
  leaseMs: 5000,
  pollMs: 5,
};

interface Stream {
  id: string;
  res: Response;
  ready: boolean;
}

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

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createInvalidationHub(deps: {
  db: Postgres;
  logger: Logger;
  metrics: Metrics;
  timing?: Partial<InvalidationTiming>;
}): InvalidationHub {
  const timing = { ...DEFAULT_INVALIDATION_TIMING, ...deps.timing };
  const { db, logger } = deps;
  const streams = new Map<string, Stream>();
  const waits = deps.metrics.histogram(
    'identity_invalidation_wait_seconds',
    'Time a revoke waited for the gateways to apply it',
  );
  const forced = deps.metrics.counter(
    'identity_invalidation_forced_expiries_total',
    'Leases ended because a gateway did not apply an event in time',
  );
  let latest: number | undefined;
  let running: Promise<void> | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let beats = 0;

  // Reading the log and writing to the streams happens one at a time, so every stream sees the
  // events in seq order, each once, and a heartbeat never overtakes an event it covers.
  let chain: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = chain.then(fn, fn);
    chain = next.catch(() => {});
    return next;
  }

  async function scanLocked(): Promise<void> {
    latest ??= await headSeq(db);
    for (;;) {
      const events = await eventsAfter(db, latest);
      if (events.length === 0) return;
      for (const event of events) send('invalidate', event);
      latest = events[events.length - 1]!.seq;
    }
  }

  function send(event: string, data: InvalidationEvent | object) {
    const text = sse(event, data);
    for (const s of streams.values()) if (s.ready) s.res.write(text);
  }

  const scan = () => exclusive(scanLocked);

  async function beat(): Promise<void> {
    try {
      await exclusive(async () => {
        await scanLocked();
        send('heartbeat', { seq: latest, lease_ms: timing.leaseMs });
      });
      if (++beats % 60 === 0) await pruneInvalidations(db);
    } catch (err) {
      // The streams stay open: without heartbeats the gateways' leases run out and they stop
      // trusting their caches, which is the safe outcome of an unreadable log.
      logger.warn({ err }, 'invalidation heartbeat failed');
    }
  }

  /** Timers and LISTEN run only while a gateway is subscribed here. */
  async function ensureRunning(): Promise<void> {
    running ??= (async () => {
      unlisten = await db.listen(INVALIDATION_CHANNEL, () => void scan().catch(() => {}));
      heartbeat = setInterval(() => void beat(), timing.heartbeatMs);
      heartbeat.unref();
    })();
    await running;
  }

  async function stopIfIdle(): Promise<void> {
    if (streams.size > 0 || !running) return;
    const wasRunning = running;
    running = undefined;
    await wasRunning.catch(() => {});
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = undefined;
    await unlisten?.().catch(() => {});
    unlisten = undefined;
  }

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
        void stopIfIdle();
      });
      try {
        await ensureRunning();
        // Inside the exclusive section: no event can be sent between the hello's seq and the
        // first event this stream receives.
        await exclusive(async () => {
          await scanLocked();
          await addSubscriber(db, stream.id, latest!, timing.leaseMs);
          res.write(
            sse('hello', {
              subscriber_id: stream.id,
              seq: latest,
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

    async published(seq) {
      const started = performance.now();
      await scan().catch((err) => logger.warn({ err }, 'invalidation scan failed; heartbeats will retry'));
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
    },

    async close() {
      for (const s of streams.values()) s.res.end();
      streams.clear();
      await stopIfIdle();
    },
  };
}

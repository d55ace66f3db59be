import type { Metrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import { createAcknowledger, type Subscription } from './invalidation-acks';
import {
  heartbeatSchema,
  helloSchema,
  type InvalidationTarget,
  invalidationEventSchema,
  readInvalidationStream,
} from './invalidation-events';
import { createLease, type Lease, logFailure } from './invalidation-lease';

// The gateway side of identity's invalidation channel (docs/decisions.md, "Token cache"). The
// subscriber keeps a lease: a cache may answer only while it holds one (invalidation-lease.ts,
// renewed by invalidation-acks.ts).

export interface InvalidationSubscriberOptions {
  identityUrl: string;
  internalSecret: string;
  target: InvalidationTarget;
  logger: Logger;
  metrics: Metrics;
  now?: () => number;
  /** Reconnection pauses grow from this to 2 s. */
  retryMs?: number;
}

export interface InvalidationSubscriber {
  start(): void;
  stop(): Promise<void>;
  /** True while the cache may be trusted. */
  leaseValid(): boolean;
  /** Changes whenever anything may have been evicted: an answer fetched before a change is not cached. */
  readonly generation: number;
  /** Resolves once a lease is held (tests, start-up). */
  whenLive(timeoutMs?: number): Promise<boolean>;
}

const MAX_RETRY_MS = 2000;

export function createInvalidationSubscriber(options: InvalidationSubscriberOptions): InvalidationSubscriber {
  const now = options.now ?? Date.now;
  const base = options.identityUrl.replace(/\/+$/, '');
  const lease = createLease({ target: options.target, metrics: options.metrics, now });
  const sub: Subscription = { subscriberId: undefined, lastSeq: 0, leaseMs: 0 };
  let stopped = true;
  let controller: AbortController | undefined;
  let loop: Promise<void> | undefined;
  let streamFailures = 0;
  const ack = createAcknowledger({
    ...options,
    base,
    now,
    subscription: sub,
    lease,
    resubscribe: () => controller?.abort(),
  });
  const handle = eventHandler(options.target, sub, lease, ack, () => {
    streamFailures = 0;
  });

  async function run(): Promise<void> {
    let pause = options.retryMs ?? 100;
    while (!stopped) {
      controller = new AbortController();
      const opened = now();
      try {
        await readInvalidationStream(base, options.internalSecret, controller.signal, handle);
      } catch (err) {
        if (!stopped) logFailure(options.logger, ++streamFailures, err, 'invalidation stream failed');
      }
      // Without the stream no invalidation can reach us: stop trusting the cache at once.
      sub.subscriberId = undefined;
      lease.drop('stream_lost');
      if (stopped) break;
      if (now() - opened > 10_000) pause = options.retryMs ?? 100;
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(MAX_RETRY_MS, pause * 2);
    }
  }

  return {
    get generation() {
      return lease.generation;
    },
    leaseValid: () => lease.valid(),
    start() {
      if (!stopped) return;
      stopped = false;
      loop = run();
    },
    async stop() {
      stopped = true;
      controller?.abort();
      await loop;
      lease.drop('stopped');
    },
    async whenLive(timeoutMs = 5000) {
      const deadline = now() + timeoutMs;
      while (now() < deadline) {
        if (lease.held()) return true;
        await new Promise((r) => setTimeout(r, 10));
      }
      return false;
    },
  };
}

/** What each message of the stream does to the subscription and the cache. */
function eventHandler(
  target: InvalidationTarget,
  sub: Subscription,
  lease: Lease,
  ack: () => Promise<void>,
  subscribed: () => void,
): (event: string, data: string) => void {
  return (event, data) => {
    if (event === 'hello') {
      const hello = helloSchema.parse(JSON.parse(data));
      lease.reset('subscribed');
      subscribed();
      sub.subscriberId = hello.subscriber_id;
      sub.lastSeq = hello.seq;
      sub.leaseMs = hello.lease_ms;
      void ack();
    } else if (event === 'invalidate') {
      const e = invalidationEventSchema.parse(JSON.parse(data));
      lease.evicted();
      target.evict(e);
      sub.lastSeq = Math.max(sub.lastSeq, e.seq);
      void ack();
    } else if (event === 'heartbeat') {
      const beat = heartbeatSchema.parse(JSON.parse(data));
      if (beat.seq > sub.lastSeq) {
        // Events we never received: nothing cached can be trusted.
        lease.reset('missed_event');
        sub.lastSeq = beat.seq;
      }
      void ack();
    }
  };
}

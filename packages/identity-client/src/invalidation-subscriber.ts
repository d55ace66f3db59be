import type { Metrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import { z } from 'zod';

// The gateway side of identity's invalidation channel (docs/decisions.md, "Token cache"). The
// subscriber keeps a lease: a cache may answer only while it holds one. The lease starts when an
// acknowledgement is *sent* and lasts the lease identity grants minus a safety margin, so it ends
// before identity, which counts from when the acknowledgement *arrived*, stops waiting for us.

export const invalidationEventSchema = z.object({
  seq: z.number().int(),
  kind: z.enum(['token', 'org', 'project', 'all']),
  token_id: z.string().optional(),
  org_id: z.string().optional(),
  project_id: z.string().optional(),
});
export type InvalidationEvent = z.infer<typeof invalidationEventSchema>;

const helloSchema = z.object({
  subscriber_id: z.string(),
  seq: z.number().int(),
  lease_ms: z.number().int().positive(),
  heartbeat_ms: z.number().int().positive(),
});
const heartbeatSchema = z.object({ seq: z.number().int() });

/** What a cache needs to hear. */
export interface InvalidationTarget {
  evict(event: InvalidationEvent): void;
  /** Forget everything: a (re)subscription, a missed event, a lost lease. */
  clear(): void;
}

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
/**
 * Failures in a row before one is logged at warn. A single failed acknowledgement or a dropped
 * stream costs only cache hits (nothing is trusted without a lease), and a busy machine produces
 * them now and then: logged at info. Failures that persist are an operator's concern.
 */
export const PERSISTENT_FAILURES = 3;

export function createInvalidationSubscriber(options: InvalidationSubscriberOptions): InvalidationSubscriber {
  const now = options.now ?? Date.now;
  const base = options.identityUrl.replace(/\/+$/, '');
  const { logger, target } = options;
  const leaseGauge = options.metrics.gauge(
    'token_cache_lease',
    'Whether the token cache holds a lease (1) or not (0)',
  );
  const resets = options.metrics.counter('token_cache_resets_total', 'Token cache emptied, by reason', [
    'reason',
  ]);

  let stopped = true;
  let controller: AbortController | undefined;
  let loop: Promise<void> | undefined;
  let subscriberId: string | undefined;
  let lastSeq = 0;
  let leaseMs = 0;
  let leaseUntil = 0;
  let generation = 0;
  let acking = false;
  let ackWanted = false;
  let wasValid = false;
  let ackFailures = 0;
  let streamFailures = 0;

  /** At info while failures are isolated, at warn once `count` of them came in a row. */
  const logFailure = (count: number, err: unknown, message: string) =>
    count >= PERSISTENT_FAILURES
      ? logger.warn({ err, in_a_row: count }, message)
      : logger.info({ err, in_a_row: count }, message);

  function reset(reason: string): void {
    generation++;
    target.clear();
    resets.inc({ reason });
  }

  function dropLease(reason: string): void {
    if (leaseUntil > 0 || wasValid) reset(reason);
    leaseUntil = 0;
    wasValid = false;
    leaseGauge.set({}, 0);
  }

  async function ack(): Promise<void> {
    ackWanted = true;
    if (acking) return;
    acking = true;
    try {
      while (ackWanted && subscriberId) {
        ackWanted = false;
        const id = subscriberId;
        const seq = lastSeq;
        const sentAt = now();
        const res = await fetch(`${base}/internal/v1/invalidations/ack`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-internal-secret': options.internalSecret },
          body: JSON.stringify({ subscriber_id: id, seq }),
          signal: AbortSignal.timeout(Math.max(500, leaseMs / 2)),
        });
        await res.arrayBuffer();
        ackFailures = 0;
        if (res.status === 200 && id === subscriberId) {
          // The safety margin covers clock rate differences and the time the answer spent in flight.
          const safety = Math.min(1000, leaseMs / 5);
          leaseUntil = Math.max(leaseUntil, sentAt + leaseMs - safety);
          wasValid = true;
          leaseGauge.set({}, 1);
        } else if (res.status === 410) {
          // identity stopped waiting for us: subscribe again from an empty cache.
          dropLease('lease_expired');
          controller?.abort();
        }
      }
    } catch (err) {
      logFailure(++ackFailures, err, 'invalidation acknowledgement failed; the lease will run out');
    } finally {
      acking = false;
    }
  }

  function handle(event: string, data: string): void {
    if (event === 'hello') {
      const hello = helloSchema.parse(JSON.parse(data));
      reset('subscribed');
      streamFailures = 0;
      subscriberId = hello.subscriber_id;
      lastSeq = hello.seq;
      leaseMs = hello.lease_ms;
      void ack();
    } else if (event === 'invalidate') {
      const e = invalidationEventSchema.parse(JSON.parse(data));
      generation++;
      target.evict(e);
      lastSeq = Math.max(lastSeq, e.seq);
      void ack();
    } else if (event === 'heartbeat') {
      const beat = heartbeatSchema.parse(JSON.parse(data));
      if (beat.seq > lastSeq) {
        // Events we never received: nothing cached can be trusted.
        reset('missed_event');
        lastSeq = beat.seq;
      }
      void ack();
    }
  }

  async function readStream(signal: AbortSignal): Promise<void> {
    const res = await fetch(`${base}/internal/v1/invalidations`, {
      headers: { accept: 'text/event-stream', 'x-internal-secret': options.internalSecret },
      signal,
    });
    if (res.status !== 200 || !res.body) {
      await res.arrayBuffer().catch(() => {});
      throw new Error(`invalidation stream answered ${res.status}`);
    }
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        handle(event, data);
      }
    }
  }

  async function run(): Promise<void> {
    let pause = options.retryMs ?? 100;
    while (!stopped) {
      controller = new AbortController();
      const opened = now();
      try {
        await readStream(controller.signal);
      } catch (err) {
        if (!stopped) logFailure(++streamFailures, err, 'invalidation stream failed');
      }
      // Without the stream no invalidation can reach us: stop trusting the cache at once.
      subscriberId = undefined;
      dropLease('stream_lost');
      if (stopped) break;
      if (now() - opened > 10_000) pause = options.retryMs ?? 100;
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(MAX_RETRY_MS, pause * 2);
    }
  }

  return {
    get generation() {
      return generation;
    },
    leaseValid() {
      if (leaseUntil > now()) return true;
      if (wasValid) dropLease('lease_ran_out');
      return false;
    },
    start() {
      if (!stopped) return;
      stopped = false;
      loop = run();
    },
    async stop() {
      stopped = true;
      controller?.abort();
      await loop;
      dropLease('stopped');
    },
    async whenLive(timeoutMs = 5000) {
      const deadline = now() + timeoutMs;
      while (now() < deadline) {
        if (leaseUntil > now()) return true;
        await new Promise((r) => setTimeout(r, 10));
      }
      return false;
    },
  };
}

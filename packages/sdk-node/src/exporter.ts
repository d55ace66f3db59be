import { type IngestTarget, parseDsn } from './dsn';
import type { LogRecord, SpanRecord } from './records';
import { signBody } from './sign';

export interface ExporterOptions {
  /** The ingest key's DSN, or its parts. */
  dsn: string | IngestTarget;
  /** Records waiting at most; beyond, new ones are dropped and counted. Default 10,000. */
  maxQueue?: number;
  /** Records per request. Default 500. */
  batchSize?: number;
  /** A partial batch waits at most this long. Default 1000 ms. */
  flushIntervalMs?: number;
  /** Attempts per batch on 429, 5xx or a network error. Default 5. */
  maxAttempts?: number;
  /** First retry delay, doubled each attempt (full jitter), or the answer's Retry-After. Default 200 ms. */
  retryBaseMs?: number;
  /** Per request. Default 10,000 ms. */
  timeoutMs?: number;
  /** Told of what could not be delivered (never thrown into the app). Default: silent. */
  onError?: (error: ExportError) => void;
}

export interface ExportError {
  reason: 'queue_full' | 'rejected' | 'gave_up';
  /** Records lost with it. */
  records: number;
  status?: number;
}

export interface ExporterStats {
  sent: number;
  /** Dropped because the queue was full, the core refused the batch (4xx), or retries ran out. */
  dropped: number;
  queued: number;
}

export interface Exporter {
  addSpan(span: SpanRecord): void;
  addLog(log: LogRecord): void;
  /** Sends everything queued now; resolves when it is delivered or given up. Never rejects. */
  flush(): Promise<void>;
  /** Flushes, then stops the timer; later records are dropped. Never rejects. */
  shutdown(): Promise<void>;
  stats(): ExporterStats;
  /** The core's base URL: outbound instrumentation leaves requests to it alone. */
  readonly endpoint: string;
}

type Queued = { type: 'spans'; record: SpanRecord } | { type: 'logs'; record: LogRecord };

/** Requests of the exporter itself carry this header, so outbound instrumentation skips them. */
export const EXPORTER_HEADER = 'x-svc-sdk-export';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

/**
 * Batches spans and logs and posts them, signed with the project's ingest key, to the core's
 * `/ingest/v1/batch`. The queue is bounded (the app's memory is not ours to spend), failures are
 * retried with backoff on 429 and 5xx, and nothing it does throws into the app.
 */
export function createExporter(options: ExporterOptions): Exporter {
  const target = typeof options.dsn === 'string' ? parseDsn(options.dsn) : options.dsn;
  const maxQueue = options.maxQueue ?? 10_000;
  const batchSize = options.batchSize ?? 500;
  const maxAttempts = options.maxAttempts ?? 5;
  const retryBaseMs = options.retryBaseMs ?? 200;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const report = (e: ExportError) => {
    try {
      options.onError?.(e);
    } catch {
      // The app's callback must not break the exporter either.
    }
  };
  const queue: Queued[] = [];
  const stats = { sent: 0, dropped: 0 };
  let stopped = false;
  let sending: Promise<void> | undefined;

  const timer = setInterval(() => void drain(), options.flushIntervalMs ?? 1000);
  timer.unref();

  function add(item: Queued) {
    if (stopped || queue.length >= maxQueue) {
      stats.dropped++;
      report({ reason: 'queue_full', records: 1 });
      return;
    }
    queue.push(item);
    if (queue.length >= batchSize) void drain();
  }

  /** One batch, with its retries; counted as sent or dropped. */
  async function post(batch: Queued[]): Promise<void> {
    const body: Record<string, unknown[]> = {};
    for (const item of batch) {
      body[item.type] ??= [];
      body[item.type]!.push(item.record);
    }
    const raw = JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      let status: number | undefined;
      let retryAfterMs: number | undefined;
      try {
        const ts = Math.floor(Date.now() / 1000);
        const res = await fetch(`${target.endpoint}/ingest/v1/batch`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-svc-key': target.keyId,
            'x-svc-timestamp': String(ts),
            'x-svc-signature': signBody(target.secret, ts, raw),
            [EXPORTER_HEADER]: '1',
          },
          body: raw,
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = res.status;
        await res.arrayBuffer().catch(() => undefined);
        if (res.ok) {
          stats.sent += batch.length;
          return;
        }
        const after = Number(res.headers.get('retry-after'));
        if (Number.isFinite(after) && after > 0) retryAfterMs = Math.min(after * 1000, 60_000);
        if (status !== 429 && status < 500) {
          // The core refused the records themselves (400, 401, 413): sending again cannot help.
          stats.dropped += batch.length;
          report({ reason: 'rejected', records: batch.length, status });
          return;
        }
      } catch {
        // A network error or timeout: retried like a 5xx.
      }
      if (attempt >= maxAttempts) {
        stats.dropped += batch.length;
        report({ reason: 'gave_up', records: batch.length, ...(status ? { status } : {}) });
        return;
      }
      await sleep(retryAfterMs ?? Math.random() * retryBaseMs * 2 ** (attempt - 1));
    }
  }

  /** Sends batches until the queue is empty; one drain at a time, so batches keep their order. */
  function drain(): Promise<void> {
    if (sending) return sending;
    if (queue.length === 0) return Promise.resolve();
    const run = (async () => {
      while (queue.length > 0) await post(queue.splice(0, batchSize));
    })();
    // Cleared in a callback, never synchronously inside `run`: a drain that finished at once
    // would otherwise leave its settled promise behind as the one in progress.
    sending = run.finally(() => {
      sending = undefined;
    });
    return sending;
  }

  async function flush(): Promise<void> {
    // A drain in progress may have started before the latest records: drain again after it.
    await drain();
    if (queue.length > 0) await drain();
  }

  return {
    endpoint: target.endpoint,
    addSpan: (record) => add({ type: 'spans', record }),
    addLog: (record) => add({ type: 'logs', record }),
    flush,
    // Safe to pass around unbound (e.g. as a signal handler): no `this`.
    async shutdown() {
      await flush();
      stopped = true;
      clearInterval(timer);
    },
    stats: () => ({ ...stats, queued: queue.length }),
  };
}

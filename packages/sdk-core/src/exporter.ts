import { type IngestTarget, parseDsn } from './dsn';
import { prepare, type Queued } from './exporter-batches';
import { createGate, createPoster, type Gate } from './exporter-post';
import type {
  BatchExporter,
  ExportError,
  ExporterOptions,
  ExportTransport,
  PreparedBatch,
} from './exporter-types';
import { unref } from './unref';

/**
 * Posts full batches while there are, and partial ones too while a flush is asked for, with up to
 * the gate's allowed workers; `drain` resolves when none is left running. A worker that posted
 * whatever had come in meanwhile sent batches of a few dozen records under steady load: one
 * request each, and most of the SDK's cost. Several requests in flight keep a core busy that
 * groups concurrent inserts; the order of batches does not matter (each record carries its own
 * time).
 */
function createPump(
  queue: Queued[],
  batchSize: number,
  [allowed]: Gate,
  post: (batch: Queued[]) => Promise<void>,
) {
  let active = 0;
  let idle: Promise<void> = Promise.resolve();
  let settle: () => void = () => undefined;
  /** Partial batches may go too (the interval passed, or a flush), until the queue is empty once. */
  let flushing = false;
  const due = () => queue.length >= batchSize || (flushing && queue.length > 0);

  async function worker(): Promise<void> {
    // A worker beyond what is allowed now (halved after a failure) stops after its batch.
    while (due() && active <= allowed()) {
      const batch = queue.splice(0, batchSize);
      // The flush is done once what was queued is out; later records wait for their batch.
      if (queue.length === 0) flushing = false;
      await post(batch);
    }
  }

  /** Starts workers while batches are due; resolves when none is left running. */
  function drain(all = false): Promise<void> {
    if (all && queue.length > 0) flushing = true;
    while (active < allowed() && due()) {
      if (active === 0) idle = new Promise((resolve) => (settle = resolve));
      active++;
      void worker().finally(() => {
        if (--active === 0) settle();
      });
    }
    // With none running, `idle` is the last one settled (or the first, resolved): resolved too.
    return idle;
  }
  // A tuple, not an object: the web bundle pays for property names.
  return [
    drain,
    /** Partial batches wait for their interval again (what was queued was taken out). */
    () => {
      flushing = false;
    },
  ] as const;
}

/**
 * Batches spans and logs (and any other record type of a batch) and posts them, signed with the
 * project's ingest key, to the core's `/ingest/v1/batch`. The queue is bounded (the app's memory
 * is not ours to spend), failures are retried with backoff on 429 and 5xx, and nothing it does
 * throws into the app. A 401 whose Date shows the local clock off by more than a minute is retried
 * once with the server's time: a laptop with a wrong clock must not lose its telemetry to the
 * signature's freshness check.
 *
 * Every batch carries an `Idempotency-Key` of its own, the same on each of its tries: a try whose
 * answer was lost (a timeout, a dropped connection) may have been stored, and its retry is signed
 * anew. Without the key the core could not tell it from new data (stored twice) or, signed in
 * the same second, refused it as a replay (409) and the stored records were counted dropped. With
 * it the core answers a stored batch's retry 200 (`"replayed": true`) without writing it again,
 * and a retry that arrives while the first try is still being written 409, tried again later.
 */
export function createExporter(options: ExporterOptions, transport: ExportTransport): BatchExporter {
  const target: IngestTarget = typeof options.dsn === 'string' ? parseDsn(options.dsn) : options.dsn;
  const maxQueue = options.maxQueue ?? 10_000;
  const batchSize = options.batchSize ?? 500;
  const keepalive = transport.keepalive === true;
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
  const gate = createGate(Math.max(1, Math.floor(options.concurrency ?? (keepalive ? 1 : 32))));
  /** Batches being sent or waiting for a retry, until counted (or handed over). */
  const outgoing = new Set<PreparedBatch>();
  /** What takeUndelivered gave away (a set beside the batches: they are handed out as they are). */
  const handedOver = new WeakSet<PreparedBatch>();
  const postPart = createPoster(options, transport, target, gate, stats, report, handedOver);

  /** One batch, with its retries; counted as sent or dropped. */
  async function post(batch: Queued[]): Promise<void> {
    const parts = prepare(batch, keepalive);
    for (const part of parts) outgoing.add(part);
    for (const part of parts) {
      try {
        await postPart(part);
      } finally {
        outgoing.delete(part);
      }
    }
  }
  const [drain, stopFlushing] = createPump(queue, batchSize, gate, post);
  // A partial batch goes when it has waited this long (or on flush), never sooner.
  const timer = unref(setInterval(() => void drain(true), options.flushIntervalMs ?? 1000));

  function add(item: Queued) {
    if (stopped || queue.length >= maxQueue) {
      stats.dropped++;
      report({ reason: 'queue_full', records: 1 });
      return;
    }
    queue.push(item);
    if (queue.length >= batchSize) void drain();
  }

  async function flush(): Promise<void> {
    // A drain in progress may have started before the latest records: drain again after it.
    await drain(true);
    if (queue.length > 0) await drain(true);
  }

  return {
    endpoint: target.endpoint,
    addSpan: (record) => add({ type: 'spans', record }),
    addLog: (record) => add({ type: 'logs', record }),
    addRecord: (type, record) => add({ type, record }),
    takeUndelivered() {
      const started = [...outgoing].filter((part) => !handedOver.has(part));
      for (const part of started) handedOver.add(part);
      const rest: PreparedBatch[] = [];
      while (queue.length > 0) rest.push(...prepare(queue.splice(0, batchSize), keepalive));
      stopFlushing();
      return [...started, ...rest];
    },
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

import { type IngestTarget, parseDsn } from './dsn';
import { newTraceId } from './ids';
import type { LogRecord, SpanRecord } from './records';

export interface ExporterOptions {
  /** The ingest key's DSN, or its parts. */
  dsn: string | IngestTarget;
  /** Records waiting at most; beyond, new ones are dropped and counted. Default 10,000. */
  maxQueue?: number;
  /** Records per request. Default 500. */
  batchSize?: number;
  /** A partial batch waits at most this long. Default 1000 ms. */
  flushIntervalMs?: number;
  /** Attempts per batch on 409, 429, 5xx or a network error. Default 5. */
  maxAttempts?: number;
  /** First retry delay, doubled each attempt (full jitter), or the answer's Retry-After. Default 200 ms. */
  retryBaseMs?: number;
  /**
   * Requests in flight at most. One opens per full batch waiting, so light traffic keeps one in
   * flight and a backlog many (the core merges concurrent bodies into one insert: more in flight,
   * larger and cheaper inserts). Halved on a 429 or 5xx, grown back by one per success. Default 32;
   * 1 in browsers (keepalive allows 64 KiB in flight).
   */
  concurrency?: number;
  /** Per request. Default 10,000 ms. */
  timeoutMs?: number;
  /** Told of what could not be delivered (never thrown into the app). Default: silent. */
  onError?: (error: ExportError) => void;
}

/** What differs between runtimes: how a request is authenticated and where it goes. */
export interface ExportTransport {
  /**
   * The headers that authenticate `body` sent at `timestamp` (unix seconds). The SDKs sign it
   * with the ingest key (docs/ingest.md, "Signing"); the stack's own services use its internal secret.
   */
  headers(
    target: IngestTarget,
    timestamp: number,
    body: string,
  ): Record<string, string> | Promise<Record<string, string>>;
  /** The ingest URL; browsers name the key in it, for the CORS preflight. */
  url(target: IngestTarget): string;
  /**
   * Browsers: send with fetch's keepalive, so a batch posted while the page goes away still
   * arrives. Keepalive bodies are limited (64 KiB in flight), so batches are split below it.
   */
  keepalive?: boolean;
  /** How a request goes out; default: fetch. Node's SDK sends with node:http (cheaper a byte). */
  send?: ExportSend;
}

/** What the exporter needs of an answer. */
export interface ExportResponse {
  status: number;
  /** A header of the answer (`date`, `retry-after`), or null. */
  header(name: string): string | null;
}

/**
 * Posts `body` to `url` and resolves with the answer once its body has been read (and dropped);
 * rejects on a network error or when `timeoutMs` passes first.
 */
export type ExportSend = (
  url: string,
  request: { headers: Record<string, string>; body: string; keepalive: boolean; timeoutMs: number },
) => Promise<ExportResponse>;

/**
 * The default sender: fetch, in browsers with keepalive when asked. The timeout is a timer of its
 * own: React Native has no AbortSignal.timeout.
 */
const fetchSend: ExportSend = async (url, { headers, body, keepalive, timeoutMs }) => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(url, { method: 'POST', headers, body, keepalive, signal: controller.signal });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, header: (name) => res.headers.get(name) };
  } finally {
    clearTimeout(timer);
  }
};

export interface ExportError {
  reason: 'queue_full' | 'rejected' | 'gave_up';
  /** Records lost with it. */
  records: number;
  status?: number;
}

export interface ExporterStats {
  /** Delivered: answered 2xx, a repeat the core had stored already (`"replayed": true`) included. */
  sent: number;
  /** Dropped because the queue was full, the core refused the batch (4xx), or retries ran out. */
  dropped: number;
  queued: number;
}

/**
 * A batch as it goes out: the body exactly as every try sends it, and the `Idempotency-Key` every
 * try carries. The same key with the same body is stored once by the core, whenever it comes again.
 */
export interface PreparedBatch {
  body: string;
  idempotencyKey: string;
  records: number;
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

/** The record arrays of a batch (docs/ingest.md, "Record types"). */
export type BatchRecordType =
  | 'logs'
  | 'crashes'
  | 'spans'
  | 'metrics'
  | 'events'
  | 'feedback'
  | 'sessions'
  | 'experiments';

/**
 * An exporter that also takes the other record types of a batch (an app's metrics, events,
 * sessions...), in the same bounded queue and the same batches as spans and logs.
 */
export interface BatchExporter extends Exporter {
  /** A record of `type` as the ingest format takes it; validated by the core, not here. */
  addRecord(type: BatchRecordType, record: object): void;
  /**
   * Everything not delivered yet, taken out of the exporter to be kept elsewhere (an app about to
   * die writes it to storage and sends it at its next start): the batches on the wire or waiting
   * for a retry, with the key their tries carried, then the queue cut into new batches. The
   * exporter tries none of them again and counts them neither sent nor dropped, except a try
   * already on the wire that is answered 2xx: counted sent (its copy, sent later under the same
   * key, is then answered as a repeat and stored once).
   */
  takeUndelivered(): PreparedBatch[];
}

type Queued = { type: BatchRecordType; record: object };

/** A batch the exporter is sending; `handedOver` once takeUndelivered gave it away. */
type Outgoing = PreparedBatch & { handedOver: boolean };

/** The header that makes a batch's retries idempotent (docs/ingest.md, "Retries and replays"). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * Requests of the exporter itself carry this header, so outbound instrumentation skips them and
 * server middleware does not trace them (a traced export would export its own span, forever).
 */
export const EXPORTER_HEADER = 'x-svc-sdk-export';

/** A timer that does not keep a Node process alive (browsers have no unref). */
function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
const sleep = (ms: number) => new Promise<void>((r) => unref(setTimeout(() => r(), ms)));

// Keepalive requests may carry 64 KiB in flight per page; stay under it with room for another.
const KEEPALIVE_BODY_BYTES = 48 * 1024;
// A Date answer further than this from the local clock is taken as the local clock being wrong.
const CLOCK_SKEW_MS = 60_000;

/**
 * Batches spans and logs (and any other record type of a batch) and posts them, signed with the project's ingest key, to the core's
 * `/ingest/v1/batch`. The queue is bounded (the app's memory is not ours to spend), failures are
 * retried with backoff on 429 and 5xx, and nothing it does throws into the app. A 401 whose Date
 * shows the local clock off by more than a minute is retried once with the server's time: a
 * laptop with a wrong clock must not lose its telemetry to the signature's freshness check.
 *
 * Every batch carries an `Idempotency-Key` of its own, the same on each of its tries: a try whose
 * answer was lost (a timeout, a dropped connection) may have been stored, and its retry is signed
 * anew. Without the key the core could not tell it from new data (stored twice) or, signed in
 * the same second, refused it as a replay (409) and the stored records were counted dropped. With
 * it the core answers a stored batch's retry 200 (`"replayed": true`) without writing it again,
 * and a retry that arrives while the first try is still being written 409, tried again later.
 */
export function createExporter(options: ExporterOptions, transport: ExportTransport): BatchExporter {
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
  const url = transport.url(target);
  const send = transport.send ?? fetchSend;
  let stopped = false;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? (transport.keepalive ? 1 : 32)));
  /** Requests allowed in flight now: AIMD between 1 and `concurrency`, so a struggling core gets air. */
  let allowed = concurrency;
  /** Requests on the wire now, and the retries waiting for one of them to end. */
  let sending = 0;
  const waiting: (() => void)[] = [];
  let active = 0;
  let idle: Promise<void> = Promise.resolve();
  let settle: () => void = () => undefined;
  /** Partial batches may go too (the interval passed, or a flush), until the queue is empty once. */
  let flushing = false;
  /** Server time minus local time, once a 401 showed the local clock is off. */
  let clockOffsetMs = 0;

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

  function bodyOf(batch: Queued[]): string {
    const body: Record<string, unknown[]> = {};
    for (const item of batch) {
      body[item.type] ??= [];
      body[item.type]!.push(item.record);
    }
    return JSON.stringify(body);
  }

  /** Batches being sent or waiting for a retry, until counted (or handed over). */
  const outgoing = new Set<Outgoing>();

  /**
   * The batch as bodies with their keys: one, or in browsers halves until each fits the keepalive
   * budget. Cut once, before the first try: a retry must be the same body under the same key.
   */
  function prepare(batch: Queued[]): Outgoing[] {
    const body = bodyOf(batch);
    if (transport.keepalive && body.length > KEEPALIVE_BODY_BYTES && batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      return [...prepare(batch.slice(0, half)), ...prepare(batch.slice(half))];
    }
    return [{ body, idempotencyKey: newTraceId(), records: batch.length, handedOver: false }];
  }

  /** One batch, with its retries; counted as sent or dropped. */
  async function post(batch: Queued[]): Promise<void> {
    const parts = prepare(batch);
    for (const part of parts) outgoing.add(part);
    for (const part of parts) {
      try {
        await postPart(part);
      } finally {
        outgoing.delete(part);
      }
    }
  }

  async function postPart(part: Outgoing): Promise<void> {
    const raw = part.body;
    let clockFixed = false;
    for (let attempt = 1; ; attempt++) {
      let status: number | undefined;
      let retryAfterMs: number | undefined;
      // A retry waits for a request to end when fewer are allowed now than are on the wire.
      while (sending >= allowed) await new Promise<void>((resolve) => waiting.push(resolve));
      // Handed over (to an app's storage): no more tries here, its copy goes under the same key.
      if (part.handedOver) return;
      sending++;
      try {
        const ts = Math.floor((Date.now() + clockOffsetMs) / 1000);
        const res = await send(url, {
          headers: {
            'content-type': 'application/json',
            ...(await transport.headers(target, ts, raw)),
            [IDEMPOTENCY_HEADER]: part.idempotencyKey,
            [EXPORTER_HEADER]: '1',
          },
          body: raw,
          // One record larger than the keepalive budget goes without it: late rather than never.
          keepalive: transport.keepalive === true && raw.length <= KEEPALIVE_BODY_BYTES,
          timeoutMs,
        });
        status = res.status;
        if (status >= 200 && status < 300) {
          stats.sent += part.records;
          allowed = Math.min(concurrency, allowed + 1);
          return;
        }
        if (status === 401 && !clockFixed && skewCorrected(res.header('date'))) {
          clockFixed = true;
          attempt--;
          continue;
        }
        const after = Number(res.header('retry-after'));
        if (Number.isFinite(after) && after > 0) retryAfterMs = Math.min(after * 1000, 60_000);
        // 409 under our key: an earlier try of this batch is still being written (its answer was
        // lost, or timed out here); a later try gets its answer. Any other 4xx (400, 401, 413):
        // the core refused the records themselves, and sending again cannot help.
        if (status !== 409 && status !== 429 && status < 500) {
          if (part.handedOver) return;
          stats.dropped += part.records;
          report({ reason: 'rejected', records: part.records, status });
          return;
        }
      } catch {
        // A network error or timeout: retried like a 5xx.
      } finally {
        sending--;
        // Each waiting retry looks again: after a success more than one may go (the limit grew).
        for (const wake of waiting.splice(0)) wake();
      }
      // A struggling core gets air; a 409 only says this batch's earlier try is not done yet.
      if (status !== 409) allowed = Math.max(1, Math.floor(allowed / 2));
      if (part.handedOver) return;
      if (attempt >= maxAttempts) {
        stats.dropped += part.records;
        report({ reason: 'gave_up', records: part.records, ...(status ? { status } : {}) });
        return;
      }
      await sleep(retryAfterMs ?? Math.random() * retryBaseMs * 2 ** (attempt - 1));
    }
  }

  /** Whether a 401's Date shows the local clock off, in which case the offset is now corrected. */
  function skewCorrected(date: string | null): boolean {
    const serverMs = date ? Date.parse(date) : Number.NaN;
    if (!Number.isFinite(serverMs)) return false;
    const offset = serverMs - Date.now();
    if (Math.abs(offset - clockOffsetMs) < CLOCK_SKEW_MS) return false;
    clockOffsetMs = offset;
    return true;
  }

  /**
   * Posts full batches while there are, and partial ones too while a flush is asked for. A worker
   * that posted whatever had come in meanwhile sent batches of a few dozen records under steady
   * load: one request each, 37 spans on average in a measured server, and most of the SDK's cost.
   */
  async function worker(): Promise<void> {
    // A worker beyond what is allowed now (halved after a failure) stops after its batch.
    while ((queue.length >= batchSize || (flushing && queue.length > 0)) && active <= allowed) {
      const batch = queue.splice(0, batchSize);
      // The flush is done once what was queued is out; later records wait for their batch.
      if (queue.length === 0) flushing = false;
      await post(batch);
    }
  }

  /**
   * Runs up to `concurrency` workers while there are batches; resolves when none is left running.
   * Several requests in flight keep a core busy that groups concurrent inserts; the order of
   * batches does not matter (each record carries its own time).
   */
  function drain(all = false): Promise<void> {
    if (all && queue.length > 0) flushing = true;
    while (active < allowed && (queue.length >= batchSize || (flushing && queue.length > 0))) {
      if (active === 0) idle = new Promise((resolve) => (settle = resolve));
      active++;
      void worker().finally(() => {
        if (--active === 0) settle();
      });
    }
    return active === 0 ? Promise.resolve() : idle;
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
      const started = [...outgoing].filter((part) => !part.handedOver);
      for (const part of started) part.handedOver = true;
      const rest: Outgoing[] = [];
      while (queue.length > 0) rest.push(...prepare(queue.splice(0, batchSize)));
      flushing = false;
      return [...started, ...rest].map(({ body, idempotencyKey, records }) => ({
        body,
        idempotencyKey,
        records,
      }));
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

/**
 * How the SDKs send: signed with the ingest key by the runtime's HMAC-SHA256 `sign` (docs/ingest.md,
 * "Signing") to `/ingest/v1/batch`. A browser names the key in the URL too (the CORS preflight
 * before the post carries no header values, and the core allows origins per key) and sends with
 * keepalive.
 */
export function ingestTransport(
  sign: (secret: string, timestamp: number, body: string) => string | Promise<string>,
  options: { browser?: boolean; send?: ExportSend } = {},
): ExportTransport {
  return {
    headers: async (target, timestamp, body) => ({
      'x-svc-key': target.keyId,
      'x-svc-timestamp': String(timestamp),
      'x-svc-signature': await sign(target.secret, timestamp, body),
    }),
    url: (target) =>
      options.browser
        ? `${target.endpoint}/ingest/v1/batch?svc_key=${encodeURIComponent(target.keyId)}`
        : `${target.endpoint}/ingest/v1/batch`,
    ...(options.browser ? { keepalive: true } : {}),
    ...(options.send ? { send: options.send } : {}),
  };
}

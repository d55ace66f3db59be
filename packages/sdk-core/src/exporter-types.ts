import type { IngestTarget } from './dsn';
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
   * with the ingest key (docs/ingest.md, "Authentication"); the stack's own services use its internal secret.
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

/** The header that makes a batch's retries idempotent (docs/ingest.md, "Retries and replays"). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * Requests of the exporter itself carry this header, so outbound instrumentation skips them and
 * server middleware does not trace them (a traced export would export its own span, forever).
 */
export const EXPORTER_HEADER = 'x-svc-sdk-export';

import type { ExporterOptions, ExporterStats, Tracer } from '@svc/sdk-core';
import type { LogFileLimits, LogLevel } from './log-files';
import type { PropagateTo } from './propagation';

// The SDK's public shapes: its options, what it tells the app, and its API.

export interface MobileSdkOptions {
  /** The ingest key's DSN: `http://<key_id>:<secret>@<host>:<port>/<project_id>`. */
  dsn: string;
  /** The app's version (`app_version` of crashes, sessions, metrics: what release health groups by). */
  appVersion: string;
  /** The service name the app's spans carry. Default `mobile`. */
  service?: string;
  /** The recall service's base URL (default port 8087). Without it log files are kept but never uploaded. */
  recallEndpoint?: string;
  /** Head-sampling rate in [0, 1]; 0 or absent keeps every trace. Use the backend's rate. */
  sampleRate?: number;
  /** URL prefixes or patterns that may get `traceparent`; default every request but the SDK's own. */
  propagateTo?: PropagateTo;
  /** Which request APIs to trace; default both. */
  instrument?: { fetch?: boolean; xhr?: boolean };
  /** The signed-in user; later with `setUser`. Until then records carry the device id as user. */
  userId?: string;
  /** A stable id of this install; default one made on first start and kept in storage. */
  deviceId?: string;
  /** `first-frame` (default): app_start_ms is measured when the first frame after init is drawn; `manual`: at `appReady()`. */
  appStart?: 'first-frame' | 'manual';
  /** How often memory_mb is sampled while the app is in the foreground; 0: never. Default 30 s. */
  sampleIntervalMs?: number;
  /** Back in the foreground within this long, the session goes on. Default 30 s. */
  sessionTimeoutMs?: number;
  /** Breadcrumbs kept for the next crash (at most 200). Default 100. */
  maxBreadcrumbs?: number;
  /** Bounds of the device log files. */
  logFiles?: LogFileLimits;
  /** Upload the day's log file after a fatal crash, without a recall request. Default true. */
  uploadLogAfterCrash?: boolean;
  /** Batching, queue and retry settings of the exporter (spans, metrics, events, feedback). */
  exporter?: Omit<ExporterOptions, 'dsn' | 'onError'>;
  /** Told of what could not be done (never thrown into the app). Default: silent. */
  onError?: (error: SdkError) => void;
}

export interface SdkError {
  reason: 'invalid' | 'queue_full' | 'rejected' | 'gave_up' | 'dropped' | 'storage' | 'internal';
  message: string;
  status?: number;
}

export interface SdkStats {
  exporter: ExporterStats;
  /** Records the SDK left out as invalid (their reason went to onError). */
  invalid: number;
  /** Calls made before the SDK had read its storage that did not fit its queue. */
  earlyDropped: number;
  breadcrumbsDropped: number;
  logLinesDropped: number;
  /**
   * Crash and session reports (and the batches a fatal crash took from the exporter) written and
   * not yet delivered, and those dropped for room.
   */
  reportsPending: number;
  reportsDropped: number;
  uploadsPending: number;
  uploadsDone: number;
  uploadsDropped: number;
}

export interface MobileSdk {
  readonly tracer: Tracer;
  /** Resolves once the SDK has read its storage and started the session. Never rejects. */
  readonly ready: Promise<void>;
  deviceId(): string | undefined;
  sessionId(): string | undefined;
  /** The signed-in user, or undefined on sign-out (records then carry the device id). */
  setUser(userId: string | undefined): void;
  /** A line of the device log (recallable), and a breadcrumb. */
  log(level: LogLevel, message: string, fields?: Record<string, unknown>, tag?: string): void;
  breadcrumb(category: string, message: string, level?: string): void;
  /** The app showed another screen: a `navigation` breadcrumb and a log line. */
  navigation(screen: string): void;
  /** A tracking event (`track.recent`, funnels, retention). */
  track(eventName: string, properties?: Record<string, unknown>): void;
  /** A metric sample (`apm.stats`); app_start_ms and memory_mb are the SDK's own. */
  metric(
    name: string,
    value: number,
    options?: { unit?: string; attributes?: Record<string, unknown> },
  ): void;
  /** User feedback (`feedback.search`); rating 0..10. */
  feedback(message: string, options?: { rating?: number }): void;
  /** Reports a caught error as a crash of this session (the session goes on). */
  captureError(error: unknown): void;
  /** With `appStart: 'manual'`: the app is ready for its user; app_start_ms is measured now. */
  appReady(): void;
  /** Asks recall whether this device's logs are wanted, and uploads them. Never rejects. */
  checkRecalls(): Promise<void>;
  /** Sends what waits (telemetry, reports, uploads); resolves when done or given up. Never rejects. */
  flush(): Promise<void>;
  stats(): SdkStats;
  /** Puts fetch, XMLHttpRequest and the error handlers back, sends what waits, stops. */
  shutdown(): Promise<void>;
}

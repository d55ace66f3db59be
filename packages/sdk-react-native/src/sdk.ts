import {
  type BatchExporter,
  createExporter,
  createTracerIn,
  type ExporterOptions,
  type ExporterStats,
  type IngestTarget,
  ingestTransport,
  newTraceId,
  parseDsn,
  type Tracer,
} from '@svc/sdk-core';
import { Breadcrumbs } from './breadcrumbs';
import { utf8 } from './bytes';
import { checkProperties, cleanAttributes, cleanId, metricValueProblem, nameProblem } from './clean-records';
import { instrumentFetch } from './instrument-fetch';
import { instrumentXhr } from './instrument-xhr';
import { type LogFileLimits, LogFiles, type LogLevel } from './log-files';
import { type NetworkHooks, type RequestSeen, withoutQuery } from './network';
import { Outbox } from './outbox';
import type { AppVisibility, MobilePlatform } from './platform';
import { originOf, type PropagateTo, propagationRule } from './propagation';
import { RecallUploader } from './recall';
import type { CrashRecord } from './records';
import { syncScope } from './scope';
import { DEFAULT_SESSION_TIMEOUT_MS, Sessions } from './sessions';
import { SignedClient } from './signed-client';
import { describeThrown, parseStack } from './stack-frames';
import { unrefTimer } from './timers';

const DEVICE_ID_KEY = 'svc.device_id';
/** Calls made before the SDK has read its storage wait at most this many; more are dropped. */
const MAX_EARLY_CALLS = 1_000;
const DEFAULT_SAMPLE_INTERVAL_MS = 30_000;
/** A startup longer than this is not a startup (a debugger, a paused device): not reported. */
const MAX_APP_START_MS = 10 * 60_000;

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

function checkOptions(options: MobileSdkOptions): IngestTarget {
  const target = parseDsn(options.dsn);
  if (typeof options.appVersion !== 'string' || !options.appVersion || options.appVersion.length > 100)
    throw new TypeError('appVersion must be the app version, 1 to 100 characters');
  if (options.recallEndpoint !== undefined && !originOf(options.recallEndpoint))
    throw new TypeError('recallEndpoint must be an http(s) URL, e.g. http://localhost:8087');
  return target;
}

/**
 * The SDK on a platform (React Native's in `init`, Node's in tests): tracing of fetch and
 * XMLHttpRequest, crashes with breadcrumbs, sessions, metrics, events, feedback and the device log
 * files that recall asks for. Configuration errors throw here, at once; after that nothing the SDK
 * does throws into the app.
 */
export function createMobileSdk(options: MobileSdkOptions, platform: MobilePlatform): MobileSdk {
  const target = checkOptions(options);
  const recallEndpoint = options.recallEndpoint?.replace(/\/+$/, '');
  const { device } = platform;
  const appVersion = options.appVersion;
  const report = (error: SdkError) => {
    try {
      options.onError?.(error);
    } catch {
      // The app's callback must not break the SDK.
    }
  };
  const guard =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A): void => {
      try {
        fn(...args);
      } catch (err) {
        report({ reason: 'internal', message: describeThrown(err).message });
      }
    };
  const counts = { invalid: 0, earlyDropped: 0 };
  const invalid = (message: string) => {
    counts.invalid++;
    report({ reason: 'invalid', message });
  };
  const storageFailed = (err: unknown) =>
    report({ reason: 'storage', message: `storage: ${describeThrown(err).message}` });

  const initAt = Date.now();
  const client = new SignedClient(target, platform.crypto, platform.fetch);
  const exporter: BatchExporter = createExporter(
    {
      // A phone's radio: a batch every 5 s (and whatever waits when the app leaves the
      // foreground), two requests in flight at most.
      flushIntervalMs: 5_000,
      concurrency: 2,
      ...options.exporter,
      dsn: target,
      onError: (e) =>
        report({
          reason: e.reason,
          message: `${e.records} record(s) not delivered: ${e.reason}`,
          ...(e.status ? { status: e.status } : {}),
        }),
    },
    ingestTransport((_secret, timestamp, body) => client.signature(timestamp, utf8(body)), {
      send: client.send,
    }),
  );
  const tracer = createTracerIn(
    { scope: syncScope, exporter: () => exporter, logSource: 'device' },
    {
      service: options.service ?? 'mobile',
      ...(options.sampleRate !== undefined ? { sampleRate: options.sampleRate } : {}),
      exporter,
    },
  );

  let deviceId = cleanId(options.deviceId);
  let userId = cleanId(options.userId);
  const user = () => userId ?? deviceId ?? 'unknown';
  const breadcrumbs = new Breadcrumbs(options.maxBreadcrumbs);
  const files = new LogFiles(platform.storage, options.logFiles, storageFailed);
  const outbox = new Outbox(platform.storage, client, newTraceId, {
    rejected: (status) =>
      report({
        reason: 'rejected',
        message: 'a stored report (a crash, a session, or telemetry kept at a crash) was refused',
        status,
      }),
    dropped: () => report({ reason: 'dropped', message: 'a session report was dropped for room' }),
  });
  const sessions = new Sessions(
    platform.storage,
    outbox,
    newTraceId,
    { platform: device.platform, app_version: appVersion },
    user,
    options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
  );
  const recall = recallEndpoint
    ? new RecallUploader({
        storage: platform.storage,
        files,
        client,
        endpoint: recallEndpoint,
        crypto: platform.crypto,
        compression: platform.compression,
        deviceId: () => deviceId ?? 'unknown',
        userId: () => userId,
        sessionId: () => sessions.id,
        events: {
          uploaded: () => undefined,
          dropped: (reason, status) =>
            report({
              reason: 'dropped',
              message: `a log file upload was dropped: ${reason}`,
              ...(status ? { status } : {}),
            }),
        },
      })
    : undefined;

  // A session change takes effect when it happens: a record made after it (the memory sample
  // taken on return to the foreground) carries the session it leads to, whose start is not after
  // the record. Only writing its report waits for storage (Sessions and the outbox keep the
  // reports in order); a flush waits for those writes.
  let sessionWork: Promise<void> = Promise.resolve();
  const inSessions = (change: () => Promise<void>) => {
    const written = change().catch(storageFailed);
    sessionWork = Promise.all([sessionWork, written]).then(() => undefined);
    return sessionWork;
  };

  // --- start: storage first; calls made meanwhile wait (bounded) -------------------------------
  let started = false;
  const early: (() => void)[] = [];
  const whenStarted = (fn: () => void) => {
    if (started) return fn();
    if (early.length >= MAX_EARLY_CALLS) {
      counts.earlyDropped++;
      return;
    }
    early.push(fn);
  };
  /** The latest recall poll (at start, on foreground): a flush waits for the jobs it makes. */
  let polling: Promise<void> = Promise.resolve();
  const pollRecalls = () => {
    if (recall) polling = recall.poll().catch(() => recall.run());
    return polling;
  };
  const ready = (async () => {
    try {
      if (!deviceId) {
        deviceId = (await platform.storage.getItem(DEVICE_ID_KEY)) ?? undefined;
        if (!deviceId) {
          deviceId = newTraceId();
          await platform.storage.setItem(DEVICE_ID_KEY, deviceId);
        }
      }
      await Promise.all([outbox.load(), files.load(), recall?.load()]);
      // The session starts with the app (init), not once storage has answered: the records made
      // meanwhile (the memory sample at launch) are of this session and not before its start.
      await inSessions(() => sessions.start(initAt));
    } catch (err) {
      storageFailed(err);
      deviceId ??= newTraceId();
    } finally {
      started = true;
      for (const fn of early.splice(0)) guard(fn)();
    }
    void outbox.drain();
    void pollRecalls();
  })();

  // --- network ----------------------------------------------------------------------------------
  const own = [originOf(target.endpoint), ...(recallEndpoint ? [originOf(recallEndpoint)] : [])];
  const network: NetworkHooks = {
    isOwn: (url) => own.includes(originOf(url)),
    propagate: propagationRule(options.propagateTo),
    seen: (request: RequestSeen) =>
      breadcrumbs.add(
        'http',
        `${request.method} ${withoutQuery(request.url)} ${request.status ?? request.failure} (${Math.round(request.durationMs)} ms)`,
        request.failure || (request.status ?? 0) >= 500 ? 'error' : 'info',
      ),
  };
  const undo: (() => void)[] = [];
  if (options.instrument?.fetch !== false && typeof globalThis.fetch === 'function')
    undo.push(instrumentFetch(tracer, network));
  if (options.instrument?.xhr !== false) undo.push(instrumentXhr(tracer, network));

  // --- records ----------------------------------------------------------------------------------
  const common = () => ({
    platform: device.platform,
    app_version: appVersion,
    ...(sessions.id ? { session_id: sessions.id } : {}),
  });

  function metric(name: string, value: number, unit?: string, attributes?: Record<string, unknown>) {
    const problem = nameProblem(name, 'a metric name') ?? metricValueProblem(value);
    if (problem) return invalid(problem);
    const timestamp = Date.now();
    whenStarted(() => {
      const cleaned = cleanAttributes(attributes);
      exporter.addRecord('metrics', {
        timestamp,
        name,
        value,
        ...(unit ? { unit: unit.slice(0, 50) } : {}),
        ...common(),
        user_id: user(),
        ...(cleaned ? { attributes: cleaned } : {}),
      });
    });
  }

  function crashOf(error: unknown, now: number): CrashRecord {
    const thrown = describeThrown(error);
    return {
      event_id: newTraceId(),
      timestamp: now,
      error_type: thrown.type,
      message: thrown.message,
      frames: parseStack(thrown.stack),
      breadcrumbs: breadcrumbs.snapshot(),
      platform: device.platform,
      app_version: appVersion,
      device_os: device.os.slice(0, 100) || 'unknown',
      user_id: user(),
      ...(sessions.id ? { session_id: sessions.id } : {}),
    };
  }

  /**
   * A crash: written to storage first (with the session, `crashed`, when fatal), then sent; the
   * day's log file queued for upload. Resolves when it is sent or the platform stops waiting.
   */
  async function onCrash(error: unknown, fatal: boolean): Promise<void> {
    try {
      await ready;
      const now = Date.now();
      const crash = crashOf(error, now);
      files.write(
        fatal ? 'FATAL' : 'ERROR',
        `${crash.error_type}: ${crash.message}`,
        { event_id: crash.event_id },
        'crash',
        now,
      );
      const session = fatal ? sessions.crashed(now) : undefined;
      await outbox.enqueue({ crashes: [crash], ...(session ? { sessions: [session] } : {}) });
      // The app ends: what the exporter has not delivered (queued, or on the wire with no answer
      // yet) goes to storage after the crash, each batch under the key its tries carried, and is
      // sent with the reports (now, or at the next start).
      if (fatal) await Promise.all(exporter.takeUndelivered().map((batch) => outbox.keep(batch)));
      await Promise.all([files.flush(), sessions.save()]);
      // A fatal crash only: the app ends, at most one a launch; an app's steady unhandled
      // rejections must not upload its log again and again.
      if (fatal && recall && options.uploadLogAfterCrash !== false)
        await recall.afterCrash(crash.event_id, now, crash.session_id);
      await Promise.all([outbox.drain(), recall?.run()]);
    } catch (err) {
      report({ reason: 'internal', message: `crash report: ${describeThrown(err).message}` });
    }
  }
  undo.push(platform.errors.onUncaught(onCrash));
  undo.push(platform.errors.onUnhandledRejection((reason) => void onCrash(reason, false)));

  // --- app start, memory, lifecycle -------------------------------------------------------------
  let appStartReported = false;
  function appReady() {
    if (appStartReported) return;
    appStartReported = true;
    const ms = platform.sinceAppStartMs();
    if (ms !== undefined && Number.isFinite(ms) && ms >= 0 && ms <= MAX_APP_START_MS)
      metric('app_start_ms', Math.round(ms), 'ms');
  }
  if (options.appStart !== 'manual') platform.afterFirstFrame(guard(appReady));

  const sampleEvery = options.sampleIntervalMs ?? DEFAULT_SAMPLE_INTERVAL_MS;
  let sampler: ReturnType<typeof setInterval> | undefined;
  const sample = guard(() => {
    const mb = platform.memoryMb();
    if (mb !== undefined && Number.isFinite(mb) && mb >= 0)
      metric('memory_mb', Math.round(mb * 10) / 10, 'MB');
    whenStarted(() => void inSessions(() => sessions.heartbeat(Date.now())));
  });
  const startSampling = () => {
    if (sampleEvery <= 0 || sampler) return;
    sample();
    sampler = unrefTimer(setInterval(sample, sampleEvery));
  };
  const stopSampling = () => {
    if (sampler) clearInterval(sampler);
    sampler = undefined;
  };
  if (platform.lifecycle.current() === 'active') startSampling();

  const onVisibility = guard((state: AppVisibility) => {
    const now = Date.now();
    whenStarted(() => {
      if (state === 'background') {
        stopSampling();
        breadcrumbs.add('app', 'background');
        void inSessions(() => sessions.background(now));
        void files.flush();
        void exporter.flush();
      } else {
        breadcrumbs.add('app', 'foreground');
        void inSessions(() => sessions.foreground(now));
        startSampling();
        void pollRecalls();
      }
    });
  });
  undo.push(platform.lifecycle.onChange(onVisibility));

  // --- the API ----------------------------------------------------------------------------------
  const log = guard((level: LogLevel, message: string, fields?: Record<string, unknown>, tag?: string) => {
    const now = Date.now();
    files.write(level, String(message), fields, tag, now);
    breadcrumbs.add(tag ? `log.${tag}` : 'log', String(message), level.toLowerCase(), now);
  });

  async function flush(): Promise<void> {
    try {
      await ready;
      await files.flush();
      await sessionWork;
      await polling;
      await Promise.all([exporter.flush(), outbox.drain(), recall?.run()]);
    } catch (err) {
      report({ reason: 'internal', message: `flush: ${describeThrown(err).message}` });
    }
  }

  return {
    tracer,
    ready,
    deviceId: () => deviceId,
    sessionId: () => sessions.id,
    setUser: guard((id: string | undefined) => {
      userId = cleanId(id);
      whenStarted(() => void inSessions(() => sessions.userChanged()));
    }),
    log,
    breadcrumb: guard((category: string, message: string, level?: string) =>
      breadcrumbs.add(String(category), String(message), level),
    ),
    navigation: guard((screen: string) => {
      breadcrumbs.add('navigation', String(screen));
      files.write('INFO', `screen ${screen}`, undefined, 'navigation');
    }),
    track: guard((eventName: string, properties?: Record<string, unknown>) => {
      const problem = nameProblem(eventName, 'an event name');
      if (problem) return invalid(problem);
      const checked = properties === undefined ? undefined : checkProperties(properties);
      if (checked && 'problem' in checked)
        invalid(`event ${eventName}: ${checked.problem}; sent without them`);
      const timestamp = Date.now();
      breadcrumbs.add('track', eventName);
      whenStarted(() =>
        exporter.addRecord('events', {
          timestamp,
          event_name: eventName,
          user_id: user(),
          ...common(),
          ...(checked && 'ok' in checked ? { properties: checked.ok } : {}),
        }),
      );
    }),
    metric: guard(
      (name: string, value: number, more?: { unit?: string; attributes?: Record<string, unknown> }) =>
        metric(name, value, more?.unit, more?.attributes),
    ),
    feedback: guard((message: string, more?: { rating?: number }) => {
      const text = String(message ?? '').slice(0, 16_384);
      if (!text.trim()) return invalid('feedback must not be empty');
      const rating = more?.rating;
      const ratingOk = typeof rating === 'number' && Number.isFinite(rating) && rating >= 0 && rating <= 10;
      if (rating !== undefined && !ratingOk) invalid('a rating must be a number in 0..10; sent without it');
      const timestamp = Date.now();
      whenStarted(() =>
        exporter.addRecord('feedback', {
          feedback_id: newTraceId(),
          timestamp,
          user_id: user(),
          message: text,
          ...(ratingOk ? { rating } : {}),
          ...common(),
        }),
      );
    }),
    captureError: guard((error: unknown) => void onCrash(error, false)),
    appReady: guard(appReady),
    async checkRecalls() {
      if (!recall) return;
      try {
        await ready;
        await pollRecalls();
      } catch (err) {
        report({ reason: 'internal', message: `recall: ${describeThrown(err).message}` });
      }
    },
    flush,
    stats: () => ({
      exporter: exporter.stats(),
      invalid: counts.invalid,
      earlyDropped: counts.earlyDropped,
      breadcrumbsDropped: breadcrumbs.dropped,
      logLinesDropped: files.droppedLines,
      reportsPending: outbox.pending,
      reportsDropped: outbox.dropped,
      uploadsPending: recall?.pending ?? 0,
      uploadsDone: recall?.uploaded ?? 0,
      uploadsDropped: recall?.dropped ?? 0,
    }),
    async shutdown() {
      for (const put of undo.splice(0)) {
        try {
          put();
        } catch {
          // Put back what can be.
        }
      }
      stopSampling();
      await flush();
      await exporter.shutdown();
      outbox.stop();
      recall?.stop();
    },
  };
}

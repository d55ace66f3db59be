import type { ExporterOptions, Tracer } from '@svc/sdk-core';
import { captureErrors } from './errors';
import { createExporter } from './exporter';
import { instrumentFetch } from './fetch';
import type { PropagateTo } from './propagation';
import { createTracer } from './tracer';
import { instrumentXhr } from './xhr';

export interface WebTracingOptions {
  /** The ingest key's DSN; the key must allow this page's origin (docs/ingest.md, "Browsers"). */
  dsn: string;
  /** The service name the page's spans carry, e.g. `web`. */
  service: string;
  /**
   * The page's release, `app_version` of its crash reports: selects the source maps uploaded with
   * that release (`--release`). Default `unknown` (maps uploaded without a release then apply).
   */
  appVersion?: string;
  /** Head-sampling rate in [0, 1]; 0 or absent keeps every trace. Use the backend's rate. */
  sampleRate?: number;
  /** Other origins or URL prefixes (or patterns) whose APIs accept `traceparent` (CORS). */
  propagateTo?: PropagateTo;
  /** Which request APIs to trace; default both. */
  instrument?: { fetch?: boolean; xhr?: boolean };
  /**
   * Uncaught errors and unhandled rejections as crash reports; default true. `captureError`
   * reports either way.
   */
  captureErrors?: boolean;
  /** Distinct errors reported per page load at most (an identical one is reported once). Default 25. */
  maxErrors?: number;
  /** Batching, queue and retry settings of the exporter. */
  exporter?: Omit<ExporterOptions, 'dsn'>;
}

export interface WebTracing {
  tracer: Tracer;
  /**
   * Reports a caught error as a crash, with the trace of the active span (or of the span it was
   * thrown in). Its `event_id`, or undefined when left out: already reported, or over `maxErrors`.
   */
  captureError(error: unknown): string | undefined;
  /** Sends what is queued now. Never rejects. */
  flush(): Promise<void>;
  /** Puts fetch, XMLHttpRequest and the error handlers back, sends what is queued, stops. */
  uninstall(): Promise<void>;
}

/** The tracing `initTracing` started last, for `captureError` called anywhere in the app. */
let installed: WebTracing | undefined;

/**
 * One call at page start: a tracer, fetch and XMLHttpRequest traced, the page's errors reported,
 * and what is queued sent when the page is hidden (the last moment a page is reliably alive;
 * keepalive carries the request past unload).
 */
export function initTracing(options: WebTracingOptions): WebTracing {
  const exporter = createExporter({ ...options.exporter, dsn: options.dsn });
  const tracer = createTracer({
    service: options.service,
    // Absent is undefined either way (keep every trace): no spread of an optional key.
    sampleRate: options.sampleRate,
    exporter,
  });
  const errors = captureErrors(exporter, {
    appVersion: options.appVersion || 'unknown',
    maxErrors: options.maxErrors ?? 25,
    global: options.captureErrors !== false,
  });
  const rules = { propagateTo: options.propagateTo };
  const undo = [
    errors.uninstall,
    ...(options.instrument?.fetch === false ? [] : [instrumentFetch(tracer, rules)]),
    ...(options.instrument?.xhr === false ? [] : [instrumentXhr(tracer, rules)]),
  ];
  const flushWhenHidden = () => {
    if (document.visibilityState === 'hidden') void exporter.flush();
  };
  // The exporter's methods need no `this` (and its flush never rejects): passed as they are.
  const flushNow = exporter.flush;
  document.addEventListener('visibilitychange', flushWhenHidden);
  addEventListener('pagehide', flushNow);
  const tracing: WebTracing = {
    tracer,
    captureError: errors.capture,
    flush: flushNow,
    async uninstall() {
      for (const put of undo) put();
      document.removeEventListener('visibilitychange', flushWhenHidden);
      removeEventListener('pagehide', flushNow);
      if (installed === tracing) installed = undefined;
      await tracer.shutdown();
    },
  };
  installed = tracing;
  return tracing;
}

/**
 * Reports a caught error as a crash through the tracing `initTracing` started; before it (or
 * after `uninstall`), nothing is sent. Its `event_id`, or undefined when left out.
 */
export function captureError(error: unknown): string | undefined {
  return installed?.captureError(error);
}

import { type BatchExporter, newTraceId } from '@svc/sdk-core';
import { syncScope, thrownIn } from './scope';
import { parseStack } from './stack-frames';

export interface ErrorCaptureOptions {
  /** `app_version` of the reports: selects the source maps uploaded for that release. */
  appVersion: string;
  /** Distinct errors reported per page load at most; later ones are dropped. */
  maxErrors: number;
  /** Whether uncaught errors and unhandled rejections are reported (else only `capture`). */
  global: boolean;
}

export interface ErrorCapture {
  /** Reports `error` as a crash; its `event_id`, or undefined when left out (a repeat, over the cap). */
  capture(error: unknown): string | undefined;
  /** Stops listening to the page's errors. */
  uninstall(): void;
}

// `device_os` from the user agent, the first that matches in this order (an Android phone's agent
// also names Linux, an iPhone's Mac OS X): "Windows NT 10.0", "Android 14", "iPhone OS 17_4"...
const OS = [
  /Windows NT [\d.]+/,
  /Android [\d.]+/,
  /iPhone OS [\d_]+/,
  /iPad/,
  /Mac OS X [\d_.]+/,
  /CrOS/,
  /Linux/,
];

/**
 * Uncaught errors (the window's `error` event) and unhandled promise rejections as crash reports
 * (`platform` web, frames the core symbolicates with the page's uploaded source maps), sent with
 * the spans. A storm of errors does not flood the core or the page's network: an error identical
 * to one already reported (type, message, top frame) is reported once per page load, and at most
 * `maxErrors` distinct ones are. A report whose error was thrown in a span (or captured inside
 * one) comes with an ERROR log line naming both the crash's `event_id` and the span's trace, the
 * link from the crash to its trace. Nothing here throws into the page.
 */
export function captureErrors(exporter: BatchExporter, options: ErrorCaptureOptions): ErrorCapture {
  const seen = new Set<string>();
  const deviceOs = OS.map((os) => os.exec(navigator.userAgent)?.[0]).find(Boolean) ?? 'unknown';

  /** `thrown` as a crash report; `type` names what is no error (a rejection with a string). */
  function report(thrown: unknown, fallbackStack = '', type = 'Error'): string | undefined {
    try {
      const e = (typeof thrown === 'object' && thrown) || {};
      const error = e as { name?: unknown; message?: unknown; stack?: unknown };
      const isError = 'message' in e;
      if (isError && typeof error.name === 'string' && error.name) type = error.name;
      const message = isError ? String(error.message) : textOf(thrown);
      const frames = parseStack(typeof error.stack === 'string' ? error.stack : fallbackStack);
      const top = frames[0];
      const key = `${type}\n${message}\n${top?.file}:${top?.line}:${top?.column}`;
      if (seen.has(key) || seen.size >= options.maxErrors) return;
      seen.add(key);
      const eventId = newTraceId();
      const crash = {
        event_id: eventId,
        timestamp: Date.now(),
        error_type: type.slice(0, 500),
        message: message.slice(0, 16384),
        frames,
        breadcrumbs: [],
        platform: 'web',
        app_version: options.appVersion,
        device_os: deviceOs,
      };
      exporter.addRecord('crashes', crash);
      const span = thrownIn.get(e) ?? syncScope.active();
      if (span)
        exporter.addRecord('logs', {
          timestamp: crash.timestamp,
          level: 'ERROR',
          message: `${crash.error_type}: ${crash.message}`,
          source: 'device',
          platform: 'web',
          app_version: options.appVersion,
          trace_id: span.traceId,
          span_id: span.spanId,
          event_id: eventId,
        });
      return eventId;
    } catch {
      // A report that cannot be made is dropped: the page's own error handling goes on.
    }
  }

  // A script of another origin served without CORS gives "Script error." and no error object:
  // the event's location is all there is.
  const onError = (event: ErrorEvent) =>
    report(
      event.error ?? event.message,
      event.filename && `    at ${event.filename}:${event.lineno}:${event.colno}`,
    );
  const onRejection = (event: PromiseRejectionEvent) => report(event.reason, '', 'UnhandledRejection');
  if (options.global) {
    addEventListener('error', onError);
    addEventListener('unhandledrejection', onRejection);
  }
  return {
    capture: (error) => report(error),
    uninstall() {
      removeEventListener('error', onError);
      removeEventListener('unhandledrejection', onRejection);
    },
  };
}

/** What was thrown or rejected that is no error: a string as it is, anything else as JSON. */
function textOf(value: unknown): string {
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}

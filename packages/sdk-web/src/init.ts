import type { ExporterOptions, Tracer } from '@svc/sdk-core';
import { instrumentFetch } from './fetch';
import type { PropagateTo } from './propagation';
import { createTracer } from './tracer';
import { instrumentXhr } from './xhr';

export interface WebTracingOptions {
  /** The ingest key's DSN; the key must allow this page's origin (docs/ingest.md, "Browsers"). */
  dsn: string;
  /** The service name the page's spans carry, e.g. `web`. */
  service: string;
  /** Head-sampling rate in [0, 1]; 0 or absent keeps every trace. Use the backend's rate. */
  sampleRate?: number;
  /** Other origins or URL prefixes (or patterns) whose APIs accept `traceparent` (CORS). */
  propagateTo?: PropagateTo;
  /** Which request APIs to trace; default both. */
  instrument?: { fetch?: boolean; xhr?: boolean };
  /** Batching, queue and retry settings of the exporter. */
  exporter?: Omit<ExporterOptions, 'dsn'>;
}

export interface WebTracing {
  tracer: Tracer;
  /** Sends what is queued now. Never rejects. */
  flush(): Promise<void>;
  /** Puts fetch and XMLHttpRequest back, sends what is queued, stops. */
  uninstall(): Promise<void>;
}

/**
 * One call at page start: a tracer, fetch and XMLHttpRequest traced, and what is queued sent when
 * the page is hidden (the last moment a page is reliably alive; keepalive carries the request past
 * unload).
 */
export function initTracing(options: WebTracingOptions): WebTracing {
  const tracer = createTracer({
    service: options.service,
    ...(options.sampleRate !== undefined ? { sampleRate: options.sampleRate } : {}),
    exporter: { ...options.exporter, dsn: options.dsn },
  });
  const rules = options.propagateTo ? { propagateTo: options.propagateTo } : {};
  const undo = [
    ...(options.instrument?.fetch === false ? [] : [instrumentFetch(tracer, rules)]),
    ...(options.instrument?.xhr === false ? [] : [instrumentXhr(tracer, rules)]),
  ];
  const flushWhenHidden = () => {
    if (document.visibilityState === 'hidden') void tracer.exporter.flush();
  };
  const flushNow = () => void tracer.exporter.flush();
  document.addEventListener('visibilitychange', flushWhenHidden);
  addEventListener('pagehide', flushNow);
  return {
    tracer,
    flush: () => tracer.exporter.flush(),
    async uninstall() {
      for (const put of undo) put();
      document.removeEventListener('visibilitychange', flushWhenHidden);
      removeEventListener('pagehide', flushNow);
      await tracer.shutdown();
    },
  };
}

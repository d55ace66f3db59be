import type { ActiveSpan, SpanScope } from './context';
import type { Exporter, ExporterOptions } from './exporter';
import { newSpanId, newTraceId } from './ids';
import type { LogRecord, SpanRecord } from './records';
import { checkSampleRate, isSampled } from './sampling';
import type { SpanContext } from './traceparent';

export interface TracerOptions {
  /** The service name every span carries (`service`). */
  service: string;
  /** Head-sampling rate in [0, 1]; 0 or absent keeps every trace. */
  sampleRate?: number;
  /** Where spans go: an exporter, or the options to make one (its DSN at least). */
  exporter: Exporter | ExporterOptions;
}

export interface StartSpanOptions {
  kind?: SpanRecord['kind'];
  /** The caller's context (an inbound traceparent); default: the active span; else a new root. */
  parent?: SpanContext;
  attributes?: Record<string, string>;
}

export interface Span {
  readonly context: ActiveSpan;
  /** Renames the span, e.g. once a router knows the route. */
  setOperation(operation: string): void;
  setAttribute(key: string, value: string | number | boolean): void;
  setStatus(status: 'ok' | 'error'): void;
  setUser(userId: string | undefined, sessionId?: string): void;
  /** Status error, and the error's type and message as attributes. */
  recordError(error: unknown): void;
  /** Reports the span (once; later calls do nothing). */
  end(): void;
}

export interface Tracer {
  readonly service: string;
  /** Where the active span lives (this runtime's scope). */
  readonly scope: SpanScope;
  readonly sampleRate: number;
  readonly exporter: Exporter;
  startSpan(operation: string, options?: StartSpanOptions): Span;
  /** Runs `fn` inside a new span, ended when `fn` settles (status error if it throws). */
  inSpan<T>(operation: string, fn: (span: Span) => T, options?: StartSpanOptions): T;
  /** A log line with the active span's ids, sent with the spans. */
  log(level: LogRecord['level'], message: string, attributes?: Record<string, string>): void;
  shutdown(): Promise<void>;
}

const MAX_ATTRIBUTE = 1024;

/** What a tracer needs of the runtime it runs in. */
export interface TracerRuntime {
  scope: SpanScope;
  /** Makes the exporter from options (signing and transport differ per runtime). */
  exporter(options: ExporterOptions): Exporter;
  /** `source` of the log lines it writes: `backend` in Node, `device` in a browser. */
  logSource: LogRecord['source'];
}

/**
 * Spans for one service. A trace is kept or dropped by its id alone (isSampled, the same in every
 * service), and a span that ends with status error is reported even when its trace was dropped
 * (SPEC rule 7); the core then weighs it 1.
 */
export function createTracerIn(runtime: TracerRuntime, options: TracerOptions): Tracer {
  const sampleRate = checkSampleRate(options.sampleRate);
  const exporter = 'addSpan' in options.exporter ? options.exporter : runtime.exporter(options.exporter);
  const { scope } = runtime;

  function startSpan(operation: string, start: StartSpanOptions = {}): Span {
    const parent = start.parent ?? scope.active();
    const traceId = parent?.traceId ?? newTraceId();
    const context: ActiveSpan = {
      traceId,
      spanId: newSpanId(),
      parentSpanId: parent?.spanId,
      sampled: isSampled(traceId, sampleRate),
    };
    const startedAt = Date.now();
    const t0 = performance.now();
    const attributes: Record<string, string> = { ...start.attributes };
    let name = operation;
    let status: SpanRecord['status'] = 'unset';
    let user: { user_id?: string; session_id?: string } = {};
    let hasAttributes = start.attributes !== undefined && Object.keys(start.attributes).length > 0;
    let ended = false;
    return {
      context,
      setOperation: (op) => {
        name = op;
      },
      setAttribute: (key, value) => {
        attributes[key] = String(value).slice(0, MAX_ATTRIBUTE);
        hasAttributes = true;
      },
      setStatus: (s) => {
        status = s;
      },
      setUser: (userId, sessionId) => {
        user = { ...(userId ? { user_id: userId } : {}), ...(sessionId ? { session_id: sessionId } : {}) };
      },
      recordError(error) {
        status = 'error';
        const e = error instanceof Error ? error : new Error(String(error));
        attributes['error.type'] = e.name.slice(0, MAX_ATTRIBUTE);
        attributes['error.message'] = e.message.slice(0, MAX_ATTRIBUTE);
        hasAttributes = true;
      },
      end() {
        if (ended) return;
        ended = true;
        if (!context.sampled && status !== 'error') return;
        // One literal with every key: undefined ones are left out of the JSON, and conditional
        // spreads would make each record a slow dictionary object on the hot path.
        exporter.addSpan({
          trace_id: context.traceId,
          span_id: context.spanId,
          parent_span_id: context.parentSpanId,
          kind: start.kind ?? 'internal',
          status,
          operation: name,
          service: options.service,
          // Epoch ms: the ingest format takes it as is, with no date text to write or to parse.
          start_time: startedAt,
          duration_ms: Math.round((performance.now() - t0) * 1000) / 1000,
          attributes: hasAttributes ? attributes : undefined,
          user_id: user.user_id,
          session_id: user.session_id,
          sample_rate: sampleRate > 0 && sampleRate < 1 ? sampleRate : undefined,
        });
      },
    };
  }

  return {
    service: options.service,
    scope,
    sampleRate,
    exporter,
    startSpan,
    inSpan(operation, fn, start) {
      const span = startSpan(operation, start);
      return scope.run(span.context, () => {
        let result: ReturnType<typeof fn>;
        try {
          result = fn(span);
        } catch (err) {
          span.recordError(err);
          span.end();
          throw err;
        }
        if (result instanceof Promise) {
          return result.then(
            (value) => {
              span.end();
              return value;
            },
            (err: unknown) => {
              span.recordError(err);
              span.end();
              throw err;
            },
          ) as ReturnType<typeof fn>;
        }
        span.end();
        return result;
      });
    },
    log(level, message, attributes) {
      const span = scope.active();
      exporter.addLog({
        timestamp: Date.now(),
        level,
        message,
        source: runtime.logSource,
        trace_id: span?.traceId,
        span_id: span?.spanId,
        attributes,
      });
    },
    shutdown: () => exporter.shutdown(),
  };
}

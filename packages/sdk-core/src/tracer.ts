import type { ActiveSpan, SpanScope } from './context';
import type { Exporter, ExporterOptions } from './exporter-types';
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
  /**
   * The caller's context (an inbound traceparent); default: the active span; else a new root.
   * `null`: a new root whatever span is active (a server's request: the span the server was
   * started in is no parent of it, though its context follows the listening socket).
   */
  parent?: SpanContext | null;
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
// The ingest format's bounds (docs/ingest.md, "spans"): past them the core refuses the span, and with
// it the whole batch it travels in.
const MAX_OPERATION = 500;
const MAX_ATTRIBUTES = 64;
const MAX_ATTRIBUTE_KEY = 200;

/** What a tracer needs of the runtime it runs in. */
export interface TracerRuntime {
  scope: SpanScope;
  /** Makes the exporter from options (signing and transport differ per runtime). */
  exporter(options: ExporterOptions): Exporter;
  /** `source` of the log lines it writes: `backend` in Node, `device` in a browser. */
  logSource: LogRecord['source'];
}

/** Where a tracer's spans go, and what every one of them carries. */
interface SpanSink {
  exporter: Exporter;
  service: string;
  /** The rate spans state (`sample_rate`), only when traces are sampled. */
  sampleRate: number | undefined;
}

/**
 * A span being timed. A class, not an object of closures: a middleware makes one per request,
 * and seven closures a span were seven allocations more for the collector.
 */
class LiveSpan implements Span {
  private readonly startedAt = Date.now();
  private readonly t0 = performance.now();
  private attributes: Record<string, string> | undefined;
  private status: SpanRecord['status'] = 'unset';
  private userId: string | undefined;
  private sessionId: string | undefined;
  private ended = false;

  constructor(
    private readonly sink: SpanSink,
    readonly context: ActiveSpan,
    private operation: string,
    private readonly start: StartSpanOptions,
  ) {
    if (start.attributes && Object.keys(start.attributes).length > 0)
      this.attributes = { ...start.attributes };
  }

  setOperation(operation: string): void {
    this.operation = operation;
  }

  setAttribute(key: string, value: string | number | boolean): void {
    // `__proto__` would set the object's prototype, not an attribute (the core leaves it out anyway).
    if (!key || key.length > MAX_ATTRIBUTE_KEY || key === '__proto__') return;
    this.attributes ??= {};
    if (!Object.hasOwn(this.attributes, key) && Object.keys(this.attributes).length >= MAX_ATTRIBUTES) return;
    this.attributes[key] = String(value).slice(0, MAX_ATTRIBUTE);
  }

  setStatus(status: 'ok' | 'error'): void {
    this.status = status;
  }

  setUser(userId: string | undefined, sessionId?: string): void {
    this.userId = userId || undefined;
    this.sessionId = sessionId || undefined;
  }

  recordError(error: unknown): void {
    this.status = 'error';
    const e = error instanceof Error ? error : new Error(String(error));
    this.setAttribute('error.type', e.name);
    this.setAttribute('error.message', e.message);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.context.sampled && this.status !== 'error') return;
    // One literal with every key: undefined ones are left out of the JSON, and conditional
    // spreads would make each record a slow dictionary object on the hot path.
    this.sink.exporter.addSpan({
      trace_id: this.context.traceId,
      span_id: this.context.spanId,
      parent_span_id: this.context.parentSpanId,
      kind: this.start.kind ?? 'internal',
      status: this.status,
      operation:
        this.operation.length > MAX_OPERATION ? this.operation.slice(0, MAX_OPERATION) : this.operation,
      service: this.sink.service,
      // Epoch ms: the ingest format takes it as is, with no date text to write or to parse.
      start_time: this.startedAt,
      duration_ms: Math.round((performance.now() - this.t0) * 1000) / 1000,
      attributes: this.attributes,
      user_id: this.userId,
      session_id: this.sessionId,
      sample_rate: this.sink.sampleRate,
    });
  }
}

/**
 * Spans for one service. A trace is kept or dropped by its id alone (isSampled, the same in every
 * service), and a span that ends with status error is reported even when its trace was dropped
 * (errors are never sampled away); the core then weighs it 1.
 */
export function createTracerIn(runtime: TracerRuntime, options: TracerOptions): Tracer {
  const sampleRate = checkSampleRate(options.sampleRate);
  const exporter = 'addSpan' in options.exporter ? options.exporter : runtime.exporter(options.exporter);
  const { scope } = runtime;

  const reported: SpanSink = {
    exporter,
    service: options.service,
    sampleRate: sampleRate > 0 && sampleRate < 1 ? sampleRate : undefined,
  };

  function startSpan(operation: string, start: StartSpanOptions = {}): Span {
    const parent = start.parent === null ? undefined : (start.parent ?? scope.active());
    const traceId = parent?.traceId ?? newTraceId();
    return new LiveSpan(
      reported,
      {
        traceId,
        spanId: newSpanId(),
        parentSpanId: parent?.spanId,
        sampled: isSampled(traceId, sampleRate),
      },
      operation,
      start,
    );
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

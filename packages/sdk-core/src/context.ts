import type { SpanContext } from './traceparent';

/** What code running inside a span can see of it: its ids, for logs and outbound headers. */
export interface ActiveSpan extends SpanContext {
  /** The span this one is a child of; undefined for a root. */
  parentSpanId: string | undefined;
}

/**
 * Where the active span lives. Node keeps it in AsyncLocalStorage (it follows async work); a
 * browser has no such thing, so there it follows synchronous code only.
 */
export interface SpanScope {
  active(): ActiveSpan | undefined;
  /** Runs `fn` with `span` active. */
  run<T>(span: ActiveSpan, fn: () => T): T;
}

import type { BackendCallOptions } from '@svc/tool-kit';

/**
 * One request's options: the tool request context as it came (a tool call's BackendCallOptions
 * are passed on as they are) and what only this client reads. `traceparent`: passed on, a fresh
 * one generated when absent or invalid. `reserveAnswer`: asked with the attempt's signal before a
 * successful answer's body is read; its wait is not the backend's time (the attempt's clock
 * stops), and its refusal is passed on as it is, never counted against the backend.
 */
export interface RequestOptions extends BackendCallOptions {
  /** Overrides the per-method retry default (GET: retried, POST: see `retryPosts`). */
  retry?: boolean;
  /**
   * The project the call is for: its failures open its own breaker (project-breakers.ts), not
   * the backend's. Absent (identity, audit, probes): the backend's breaker counts them.
   */
  project?: string;
  /** No client span even with a tracer (health probes: every few seconds, a root trace each). */
  untraced?: boolean;
}

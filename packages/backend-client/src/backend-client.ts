import type { Metrics } from '@svc/metrics';
import type { Tracer } from '@svc/sdk-core';
import type { BackendCallOptions, BackendToolCaller, Logger } from '@svc/tool-kit';
import { Pool } from 'undici';
import { type BreakerOptions, DEFAULT_BREAKER } from './breaker-options';
import { type BreakerState, createBreakers } from './breakers';
import type { RequestOptions } from './request-options';
import { requestCounter, retriedRequests } from './retried-requests';
import { attemptSender } from './send-attempt';

/** Per-attempt timeouts: identity answers from an index lookup; the others run analytic queries. */
export const DEFAULT_TIMEOUT_MS = { identity: 2_000, core: 15_000, recall: 15_000, copilot: 15_000 } as const;

export interface BackendClientOptions {
  name: string;
  baseUrl: string;
  internalSecret: string;
  /** Per-attempt HTTP timeout; the breaker's own timeout is set above it. */
  timeoutMs: number;
  /** Defaults to DEFAULT_BREAKER. */
  breaker?: BreakerOptions;
  metrics: Metrics;
  logger: Logger;
  /**
   * Retry POSTs too. Every tool call is a query, so it would be safe, but by default tool calls
   * are not retried: a slow analytic query retried twice triples the caller's wait.
   */
  retryPosts?: boolean;
  /**
   * The service's own tracer (SVC_SELF_TRACE_PROJECT): each attempt becomes a client span, child of
   * the active span, and the `traceparent` sent points at it. Without one, nothing is made and an
   * inbound traceparent is passed on unchanged (outboundTraceparent).
   */
  tracer?: Tracer;
}

export interface BackendClient {
  readonly name: string;
  postJson(path: string, body: unknown, options: RequestOptions): Promise<unknown>;
  getJson(path: string, options: RequestOptions): Promise<unknown>;
  asToolCaller(): BackendToolCaller;
  breakerState(): BreakerState;
  /** Stops timers and closes pooled sockets. */
  close(): void;
}

/**
 * One HTTP client per backend service: an undici connection pool with keep-alive (docs/decisions.md,
 * "Gateway": chosen over got, whose per-request cost was most of the gateway's), one opossum
 * breaker and a breaker per project (breakers.ts), the internal secret, request id and traceparent
 * on every call, and answers mapped into the error hierarchy (send-attempt.ts). Retries
 * (retried-requests.ts) run outside the breaker so that an opened breaker also stops them.
 */
export function createBackendClient(options: BackendClientOptions): BackendClient {
  const { name } = options;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const origin = new URL(baseUrl);
  // Timeouts are the pool's (no timer per request): until the answer's headers, and between its
  // body's chunks; the attempt's deadline (a little longer) bounds the whole call.
  const pool = new Pool(origin.origin, {
    connections: 128,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const countRequest = requestCounter(name, options.metrics);
  const sender = attemptSender({
    name,
    pool,
    pathPrefix: origin.pathname.replace(/\/+$/, ''),
    internalSecret: options.internalSecret,
    timeoutMs: options.timeoutMs,
    logger: options.logger,
    retryAfterSeconds: () => breakers.retryAfterSeconds(),
  });
  const breakers = createBreakers({
    name,
    breaker: options.breaker ?? DEFAULT_BREAKER,
    metrics: options.metrics,
    logger: options.logger,
    send: sender.send,
    transportError: sender.transportError,
  });
  const request = retriedRequests({
    name,
    breakers,
    countRequest,
    retryPosts: options.retryPosts === true,
    tracer: options.tracer,
  });

  const client: BackendClient = {
    name,
    postJson: (path, body, req) => request({ method: 'POST', path, body, options: req }),
    getJson: (path, req) => request({ method: 'GET', path, body: undefined, options: req }),
    asToolCaller(): BackendToolCaller {
      return {
        callTool(projectId: string, tool: string, input: unknown, call: BackendCallOptions) {
          const path = `/internal/v1/projects/${encodeURIComponent(projectId)}/tools/${encodeURIComponent(tool)}`;
          // The tool request context goes on as it came; the project opens its own breaker.
          return client.postJson(path, input, { ...call, project: projectId });
        },
      };
    },
    breakerState: breakers.state,
    close() {
      breakers.shutdown();
      void pool.destroy().catch(() => {});
    },
  };
  return client;
}

import type { BoundCounter, BoundHistogram, Metrics } from '@svc/metrics';
import { formatTraceparent, parseTraceparent, type Tracer, templatePath } from '@svc/sdk-core';
import {
  ACTOR_HEADER,
  type BackendCallOptions,
  BackendTimeoutError,
  type BackendToolCaller,
  BackendUnavailableError,
  InternalError,
  type Logger,
  NotFoundError,
  QueryBudgetError,
  RateLimitedError,
  ServiceError,
  UnparsedAnswer,
  UserInputError,
} from '@svc/tool-kit';
import CircuitBreaker from 'opossum';
import { Pool } from 'undici';
import { AttemptDeadline } from './attempt-deadline';
import { type BreakerOptions, DEFAULT_BREAKER } from './breaker-options';
import { errorFromStatus, parseJson } from './map-response';
import { ProjectBreakers } from './project-breakers';
import { outboundTraceparent } from './traceparent';

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

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BackendClient {
  readonly name: string;
  postJson(path: string, body: unknown, options: RequestOptions): Promise<unknown>;
  getJson(path: string, options: RequestOptions): Promise<unknown>;
  asToolCaller(): BackendToolCaller;
  breakerState(): BreakerState;
  /** Stops timers and closes pooled sockets. */
  close(): void;
}

type Method = 'GET' | 'POST';
interface Attempt {
  method: Method;
  path: string;
  body: unknown;
  options: RequestOptions;
  /** The attempt's client span, when traced: the header then points at it. */
  traceparent?: string;
}

const MAX_RETRIES = 2;
const RETRY_BASE_MS = 50;
const RETRY_CAP_MS = 400;
/** An attempt's deadline = HTTP timeout + this, so undici's own timeouts (mapped precisely) fire first. */
const DEADLINE_MARGIN_MS = 500;
const BREAKER_STATE_VALUE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };
/** undici's codes for a connection that could not be made or was lost. */
const CONNECTION_ERRORS = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_DESTROYED',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Errors of the caller's own side (the answer budget's refusals), passed through the breaker as they are. */
const callerSide = new WeakSet<object>();

/** Answers that say nothing about the backend's health: the breaker counts them as successes. */
function isCallerError(err: unknown): boolean {
  return (
    (typeof err === 'object' && err !== null && callerSide.has(err)) ||
    err instanceof UserInputError ||
    err instanceof NotFoundError ||
    err instanceof CancelledError ||
    // One project's load (a full queue of its queries, a query over its time budget): counting it
    // would let a busy tenant open the breaker for every other.
    err instanceof RateLimitedError ||
    err instanceof QueryBudgetError
  );
}

/** Failing fast: the server was not called. */
class BreakerOpenError extends BackendUnavailableError {}

/** Failing fast for one project whose calls kept failing: the server was not called. */
class ProjectBreakerOpenError extends BreakerOpenError {
  constructor(backend: string, retryAfterSeconds: number) {
    super(backend, retryAfterSeconds);
    this.message = `The ${backend} service is failing for this project's calls; retry in ${retryAfterSeconds} s.`;
  }
}

/** Transport failures that say the backend cannot be reached at all (not slow, not failing one query). */
function isUnreachable(err: unknown): boolean {
  if (!(err instanceof BackendUnavailableError) || err instanceof BreakerOpenError) return false;
  return unreachable.has(err);
}
const unreachable = new WeakSet<object>();

/** The caller went away (its signal aborted); says nothing about the backend. */
class CancelledError extends InternalError {
  constructor() {
    super('The request was cancelled.');
  }
}

/**
 * One HTTP client per backend service: an undici connection pool with keep-alive (docs/decisions.md,
 * "Gateway": chosen over got, whose per-request cost was most of the gateway's), one opossum breaker, the internal
 * secret, request id and traceparent on every call, and answers mapped into the tool-kit error
 * hierarchy (backend text is logged, never put in a message a client sees, except a 400 in our
 * own documented shape). Retries (at most 2, full jitter) run outside the breaker so that an
 * opened breaker also stops the retries, and each attempt counts towards its statistics.
 */
export function createBackendClient(options: BackendClientOptions): BackendClient {
  const { name, logger, tracer } = options;
  const breakerOptions = options.breaker ?? DEFAULT_BREAKER;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const origin = new URL(baseUrl);
  const pathPrefix = origin.pathname.replace(/\/+$/, '');
  // Timeouts are the pool's (no timer per request): until the answer's headers, and between its
  // body's chunks; opossum's timeout (a little longer) bounds the whole call.
  const pool = new Pool(origin.origin, {
    connections: 128,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const requests = options.metrics.counter('backend_requests_total', 'Backend HTTP requests by outcome', [
    'backend',
    'method',
    'outcome',
  ]);
  const latency = options.metrics.histogram('backend_request_duration_seconds', 'Backend request latency', [
    'backend',
    'outcome',
  ]);
  const breakerGauge = options.metrics.gauge(
    'backend_breaker_state',
    'Circuit breaker state per backend: 0 closed, 1 half-open, 2 open',
    ['backend'],
  );

  // The attempt's own deadline (AttemptDeadline) bounds a call, not opossum's timer: opossum's
  // would settle the call while its request and any answer-budget wait went on unseen, and charge
  // the gateway's own waiting to the backend.
  const breaker = new CircuitBreaker(send, {
    name,
    timeout: false,
    volumeThreshold: breakerOptions.volumeThreshold,
    errorThresholdPercentage: breakerOptions.errorThresholdPercentage,
    resetTimeout: breakerOptions.resetTimeoutMs,
    rollingCountTimeout: breakerOptions.rollingCountTimeoutMs,
    // A project's call counts here only when the backend could not be reached at all; its other
    // failures are its project's (projectBreakers), so one tenant cannot open this for all.
    errorFilter: (err: unknown, attempt?: Attempt) =>
      isCallerError(err) || (attempt?.options.project !== undefined && !isUnreachable(err)),
  });
  const projectGauge = options.metrics
    .holding('backend_projects_shed', 'Projects whose calls fail fast after failing (per-project breakers)', [
      'backend',
    ])
    .bind({ backend: name });
  let shedTimer: NodeJS.Timeout | undefined;
  const projectBreakers = new ProjectBreakers(breakerOptions, Date.now, () => {
    projectGauge.set(projectBreakers.openCount());
    // The gauge falls back when a shed project's reset time passes, called or not.
    clearTimeout(shedTimer);
    if (projectBreakers.openCount() > 0) {
      shedTimer = setTimeout(
        () => projectGauge.set(projectBreakers.openCount()),
        breakerOptions.resetTimeoutMs,
      );
      shedTimer.unref();
    }
    // Most active projects shed at once: the backend fails for everyone, whatever the cause.
    if (!breaker.opened && projectBreakers.mostAreShed()) {
      logger.warn(
        { backend: name, shed: projectBreakers.openCount() },
        'most projects failing: breaker opened',
      );
      breaker.open();
    }
  });
  let openedAt = 0;
  const reportState = () => breakerGauge.set({ backend: name }, BREAKER_STATE_VALUE[state()]);
  breaker.on('open', () => {
    openedAt = Date.now();
    logger.warn({ backend: name }, 'circuit breaker opened');
    reportState();
  });
  breaker.on('halfOpen', reportState);
  breaker.on('close', () => {
    logger.info({ backend: name }, 'circuit breaker closed');
    reportState();
  });
  reportState();

  function state(): BreakerState {
    if (breaker.opened) return 'open';
    if (breaker.halfOpen) return 'half_open';
    return 'closed';
  }

  /** Seconds until the breaker lets a trial call through; at least 1. */
  function retryAfterSeconds(): number {
    if (!breaker.opened) return 1;
    const remaining = openedAt + breakerOptions.resetTimeoutMs - Date.now();
    return Math.max(1, Math.ceil(remaining / 1000));
  }

  async function send(attempt: Attempt): Promise<unknown> {
    const { method, path, body, options: req } = attempt;
    const deadline = new AttemptDeadline(options.timeoutMs + DEADLINE_MARGIN_MS, req.signal);
    let response: { statusCode: number; body: string; retryAfter?: string };
    try {
      const headers: Record<string, string> = {
        accept: 'application/json',
        'x-internal-secret': options.internalSecret,
        'x-request-id': req.requestId,
        traceparent: attempt.traceparent ?? outboundTraceparent(req.traceparent),
      };
      if (req.actor) headers[ACTOR_HEADER] = JSON.stringify(req.actor);
      if (method === 'POST') headers['content-type'] = 'application/json';
      const res = await pool.request({
        method,
        path: pathPrefix + path,
        headers,
        ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
        // The deadline is an abort signal to undici (attempt-deadline.ts), without an AbortController.
        signal: deadline as unknown as AbortSignal,
      });
      const retryAfter = res.headers['retry-after'];
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const announced = Number(res.headers['content-length']);
      const length = Number.isFinite(announced) ? announced : undefined;
      if (req.reserveAnswer && ok) {
        deadline.pause();
        try {
          await req.reserveAnswer(length, deadline);
        } catch (err) {
          // Not read, so not kept: the connection goes, and the backend sees its client leave.
          res.body.on('error', () => {});
          res.body.destroy();
          if (typeof err === 'object' && err !== null) callerSide.add(err);
          throw err;
        }
        deadline.resume();
      }
      if (ok && req.unparsedFrom !== undefined && length !== undefined && length >= req.unparsedFrom) {
        // One contiguous buffer, which the caller may hand to a worker without a copy.
        return new UnparsedAnswer(new Uint8Array(await res.body.arrayBuffer()));
      }
      response = {
        statusCode: res.statusCode,
        body: await res.body.text(),
        ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
      };
    } catch (err) {
      // The answer budget's refusal, as it is (passed through the breaker uncounted).
      if (typeof err === 'object' && err !== null && callerSide.has(err)) throw err;
      if (deadline.timedOut) throw new BackendTimeoutError(name, { cause: err });
      // A caller that went away cancels the request (and the query behind it, which sees the close).
      if (req.signal?.aborted) throw new CancelledError();
      if (err instanceof ServiceError) throw err;
      throw transportError(err);
    } finally {
      deadline.clear();
    }
    if (response.statusCode >= 200 && response.statusCode < 300) {
      const parsed = parseJson(response.body);
      if (parsed === undefined) {
        logger.error(
          { backend: name, path, status: response.statusCode },
          'backend answered with invalid JSON',
        );
        throw new InternalError('Internal error.');
      }
      return parsed;
    }
    const mapped = errorFromStatus(
      name,
      response.statusCode,
      response.body,
      retryAfterSeconds,
      response.retryAfter,
    );
    if (!isCallerError(mapped)) {
      logger.warn(
        { backend: name, path, status: response.statusCode, body: response.body.slice(0, 500) },
        'backend answered with an error',
      );
    }
    throw mapped;
  }

  function transportError(err: unknown): ServiceError {
    const code =
      (err as { code?: string; cause?: { code?: string } }).code ??
      (err as { cause?: { code?: string } }).cause?.code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') {
      return new BackendTimeoutError(name, { cause: err });
    }
    if (code && CONNECTION_ERRORS.has(code)) {
      const down = new BackendUnavailableError(name, retryAfterSeconds(), { cause: err });
      unreachable.add(down);
      return down;
    }
    logger.error({ backend: name, err }, 'backend request failed');
    return new BackendUnavailableError(name, retryAfterSeconds(), { cause: err });
  }

  /**
   * One attempt through the breakers (its project's, then the backend's), with opossum's own
   * failures mapped too. The project's breaker hears every outcome of a call it let through, a
   * trial's included, so a trial's place is never kept by a call that ended otherwise.
   */
  async function fire(attempt: Attempt): Promise<unknown> {
    const project = attempt.options.project;
    const admission = project === undefined ? undefined : projectBreakers.admit(project);
    if (admission && !admission.admitted) {
      throw new ProjectBreakerOpenError(name, admission.retryAfterSeconds);
    }
    let outcome: 'success' | 'failure' | 'none' = 'success';
    try {
      return await breaker.fire(attempt);
    } catch (err) {
      const mapped = mapFireError(err);
      outcome = outcomeForProject(mapped);
      throw mapped;
    } finally {
      if (project !== undefined)
        projectBreakers.record(project, outcome, admission?.admitted === true && admission.trial);
    }
  }

  function mapFireError(err: unknown): ServiceError {
    if (err instanceof ServiceError) return err;
    if ((err as { code?: string }).code === 'EOPENBREAKER')
      return new BreakerOpenError(name, retryAfterSeconds());
    return transportError(err);
  }

  // Each (method, outcome) bound once: a request counted with a label object per call had
  // prom-client build a key from it every time (~2% of the gateway's CPU per call).
  const boundRequests = new Map<string, BoundCounter>();
  const boundLatency = new Map<string, BoundHistogram>();
  function countRequest(method: string, outcome: string, seconds: number) {
    const key = `${method} ${outcome}`;
    let counter = boundRequests.get(key);
    if (!counter) {
      counter = requests.bind({ backend: name, method, outcome });
      boundRequests.set(key, counter);
    }
    counter.inc();
    let histogram = boundLatency.get(outcome);
    if (!histogram) {
      histogram = latency.bind({ backend: name, outcome });
      boundLatency.set(outcome, histogram);
    }
    histogram.observe(seconds);
  }

  async function request(attempt: Attempt): Promise<unknown> {
    const retry = attempt.options.retry ?? (attempt.method === 'GET' || options.retryPosts === true);
    const started = performance.now();
    let outcome = 'ok';
    try {
      for (let n = 0; ; n++) {
        try {
          return await (tracer && !attempt.options.untraced ? fireTraced(tracer, attempt, n) : fire(attempt));
        } catch (err) {
          if (!retry || n >= MAX_RETRIES || !isRetryable(err) || attempt.options.signal?.aborted) throw err;
          await sleep(Math.random() * Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** n));
        }
      }
    } catch (err) {
      outcome = outcomeOf(err);
      throw err;
    } finally {
      countRequest(attempt.method, outcome, (performance.now() - started) / 1000);
    }
  }

  /**
   * One attempt in a client span: its parent is the span the caller runs in (the server span of the
   * request being served), else the caller's traceparent, else none (a root).
   */
  async function fireTraced(tracer: Tracer, attempt: Attempt, retry: number): Promise<unknown> {
    const span = tracer.startSpan(`${attempt.method} ${templatePath(attempt.path)}`, {
      kind: 'client',
      parent: tracer.scope.active() ?? parseTraceparent(attempt.options.traceparent),
      attributes: { 'peer.service': name, 'http.method': attempt.method },
    });
    if (retry > 0) span.setAttribute('retry', retry);
    try {
      const answer = await fire({ ...attempt, traceparent: formatTraceparent(span.context) });
      span.setStatus('ok');
      return answer;
    } catch (err) {
      span.recordError(err);
      span.setAttribute('outcome', outcomeOf(err));
      throw err;
    } finally {
      span.end();
    }
  }

  /** Transient failures only, and never once the breaker is open (that answer is final). */
  function isRetryable(err: unknown): boolean {
    return (
      err instanceof BackendUnavailableError &&
      !(err instanceof BreakerOpenError) &&
      !callerSide.has(err) &&
      !breaker.opened
    );
  }

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
    breakerState: state,
    close() {
      clearTimeout(shedTimer);
      breaker.shutdown();
      void pool.destroy().catch(() => {});
    },
  };
  return client;
}

/** What a failed attempt tells its project's breaker: nothing when the backend never had it. */
function outcomeForProject(err: ServiceError): 'success' | 'failure' | 'none' {
  if (err instanceof BreakerOpenError || err instanceof CancelledError) return 'none';
  return isCallerError(err) ? 'success' : 'failure';
}

function outcomeOf(err: unknown): string {
  if (err instanceof CancelledError) return 'cancelled';
  if (err instanceof BreakerOpenError) return 'breaker_open';
  if (err instanceof ServiceError) return err.code;
  return 'internal';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

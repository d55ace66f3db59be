import { BackendUnavailableError } from '@svc/errors';
import type { BoundCounter, BoundHistogram, Metrics } from '@svc/metrics';
import { formatTraceparent, parseTraceparent, type Tracer, templatePath } from '@svc/sdk-core';
import { BreakerOpenError, isCallerSide, outcomeOf } from './backend-errors';
import type { Breakers } from './breakers';
import type { Attempt } from './send-attempt';

const MAX_RETRIES = 2;
const RETRY_BASE_MS = 50;
const RETRY_CAP_MS = 400;

export interface RetriedRequestsOptions {
  name: string;
  breakers: Breakers;
  /** From requestCounter: made before the breakers, so the metrics keep their order. */
  countRequest: RequestCounter;
  /** Retry POSTs too (BackendClientOptions.retryPosts). */
  retryPosts: boolean;
  tracer: Tracer | undefined;
}

/**
 * A request as attempts: retries (at most 2, full jitter) run outside the breaker so that an
 * opened breaker also stops the retries, and each attempt counts towards its statistics. Each
 * attempt is a client span when there is a tracer; each request is counted once, by outcome.
 */
export function retriedRequests(options: RetriedRequestsOptions): (attempt: Attempt) => Promise<unknown> {
  const { breakers, tracer, countRequest } = options;

  /** Transient failures only, and never once the breaker is open (that answer is final). */
  const isRetryable = (err: unknown) =>
    err instanceof BackendUnavailableError &&
    !(err instanceof BreakerOpenError) &&
    !isCallerSide(err) &&
    !breakers.isOpen();

  return async function request(attempt: Attempt): Promise<unknown> {
    const retry = attempt.options.retry ?? (attempt.method === 'GET' || options.retryPosts);
    const started = performance.now();
    let outcome = 'ok';
    try {
      for (let n = 0; ; n++) {
        try {
          return await (tracer && !attempt.options.untraced
            ? fireTraced(tracer, breakers, options.name, attempt, n)
            : breakers.fire(attempt));
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
  };
}

/**
 * One attempt in a client span: its parent is the span the caller runs in (the server span of the
 * request being served), else the caller's traceparent, else none (a root).
 */
async function fireTraced(
  tracer: Tracer,
  breakers: Breakers,
  name: string,
  attempt: Attempt,
  retry: number,
): Promise<unknown> {
  const span = tracer.startSpan(`${attempt.method} ${templatePath(attempt.path)}`, {
    kind: 'client',
    parent: tracer.scope.active() ?? parseTraceparent(attempt.options.traceparent),
    attributes: { 'peer.service': name, 'http.method': attempt.method },
  });
  if (retry > 0) span.setAttribute('retry', retry);
  try {
    const answer = await breakers.fire({ ...attempt, traceparent: formatTraceparent(span.context) });
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

/**
 * Counts a request and its latency by outcome. Each (method, outcome) is bound once: a request
 * counted with a label object per call had prom-client build a key from it every time (~2% of the
 * gateway's CPU per call).
 */
export type RequestCounter = (method: string, outcome: string, seconds: number) => void;

export function requestCounter(name: string, metrics: Metrics): RequestCounter {
  const requests = metrics.counter('backend_requests_total', 'Backend HTTP requests by outcome', [
    'backend',
    'method',
    'outcome',
  ]);
  const latency = metrics.histogram('backend_request_duration_seconds', 'Backend request latency', [
    'backend',
    'outcome',
  ]);
  const boundRequests = new Map<string, BoundCounter>();
  const boundLatency = new Map<string, BoundHistogram>();
  return (method: string, outcome: string, seconds: number) => {
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
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

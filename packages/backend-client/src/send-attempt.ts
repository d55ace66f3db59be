import { BackendTimeoutError, BackendUnavailableError, InternalError, ServiceError } from '@svc/errors';
import { ACTOR_HEADER, type Logger, UnparsedAnswer } from '@svc/tool-kit';
import type { Pool } from 'undici';
import { AttemptDeadline } from './attempt-deadline';
import {
  CancelledError,
  isCallerError,
  isCallerSide,
  markCallerSide,
  markUnreachable,
} from './backend-errors';
import { errorFromStatus, parseJson } from './map-response';
import type { RequestOptions } from './request-options';
import { outboundTraceparent } from './traceparent';

export type Method = 'GET' | 'POST';

/** One HTTP attempt of a request (a request is retried as new attempts). */
export interface Attempt {
  method: Method;
  path: string;
  body: unknown;
  options: RequestOptions;
  /** The attempt's client span, when traced: the header then points at it. */
  traceparent?: string;
}

export interface AttemptSenderOptions {
  name: string;
  pool: Pool;
  /** The base URL's path, put before every request's. */
  pathPrefix: string;
  internalSecret: string;
  timeoutMs: number;
  logger: Logger;
  /** Seconds until the breaker lets a trial call through (Retry-After of a 503 made here). */
  retryAfterSeconds: () => number;
}

/** An attempt's deadline = HTTP timeout + this, so undici's own timeouts (mapped precisely) fire first. */
const DEADLINE_MARGIN_MS = 500;
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

interface Answered {
  statusCode: number;
  body: string;
  retryAfter?: string;
}

/**
 * Sends one attempt and maps its answer into the error hierarchy (backend text is logged, never
 * put in a message a client sees, except a 400 in our own documented shape).
 */
export function attemptSender(options: AttemptSenderOptions) {
  const { name } = options;
  const transportError = (err: unknown) => transportErrorOf(err, options);

  async function send(attempt: Attempt): Promise<unknown> {
    const req = attempt.options;
    const deadline = new AttemptDeadline(options.timeoutMs + DEADLINE_MARGIN_MS, req.signal);
    let response: Answered | UnparsedAnswer;
    try {
      response = await exchange(attempt, deadline, options);
    } catch (err) {
      // The answer budget's refusal, as it is (passed through the breaker uncounted).
      if (isCallerSide(err)) throw err;
      if (deadline.timedOut) throw new BackendTimeoutError(name, { cause: err });
      // A caller that went away cancels the request (and the query behind it, which sees the close).
      if (req.signal?.aborted) throw new CancelledError();
      if (err instanceof ServiceError) throw err;
      throw transportError(err);
    } finally {
      deadline.clear();
    }
    return response instanceof UnparsedAnswer ? response : answerOf(attempt.path, response, options);
  }

  return { send, transportError };
}

/** The HTTP exchange: the answer's text, or its bytes unparsed when large and asked for so. */
async function exchange(
  attempt: Attempt,
  deadline: AttemptDeadline,
  options: AttemptSenderOptions,
): Promise<Answered | UnparsedAnswer> {
  const { method, path, body, options: req } = attempt;
  const res = await options.pool.request({
    method,
    path: options.pathPrefix + path,
    headers: headersOf(attempt, options.internalSecret),
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
      markCallerSide(err);
      throw err;
    }
    deadline.resume();
  }
  if (ok && req.unparsedFrom !== undefined && length !== undefined && length >= req.unparsedFrom) {
    // One contiguous buffer, which the caller may hand to a worker without a copy.
    return new UnparsedAnswer(new Uint8Array(await res.body.arrayBuffer()));
  }
  return {
    statusCode: res.statusCode,
    body: await res.body.text(),
    ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
  };
}

/** A 2xx's JSON, or the answer's status mapped into the error hierarchy (thrown). */
function answerOf(path: string, response: Answered, options: AttemptSenderOptions): unknown {
  const { name, logger } = options;
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
    options.retryAfterSeconds,
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

function headersOf(attempt: Attempt, internalSecret: string): Record<string, string> {
  const req = attempt.options;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-internal-secret': internalSecret,
    'x-request-id': req.requestId,
    traceparent: attempt.traceparent ?? outboundTraceparent(req.traceparent),
  };
  if (req.actor) headers[ACTOR_HEADER] = JSON.stringify(req.actor);
  if (attempt.method === 'POST') headers['content-type'] = 'application/json';
  return headers;
}

/** An undici failure as the error hierarchy has it: a timeout, or the backend unavailable. */
function transportErrorOf(err: unknown, options: AttemptSenderOptions): ServiceError {
  const { name } = options;
  const code =
    (err as { code?: string; cause?: { code?: string } }).code ??
    (err as { cause?: { code?: string } }).cause?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') {
    return new BackendTimeoutError(name, { cause: err });
  }
  if (code && CONNECTION_ERRORS.has(code)) {
    const down = new BackendUnavailableError(name, options.retryAfterSeconds(), { cause: err });
    markUnreachable(down);
    return down;
  }
  options.logger.error({ backend: name, err }, 'backend request failed');
  return new BackendUnavailableError(name, options.retryAfterSeconds(), { cause: err });
}

// The one error hierarchy of the stack. Every failure that reaches a client is one of these;
// `toHttpError` (http-status.ts) and `toMcpToolError` (@svc/tool-server's mcp-binding.ts) are the
// only places that turn them into wire answers. `message` is always safe to show: backend error
// text never lands here.

export type ErrorCode =
  | 'invalid_input'
  | 'unauthorized'
  | 'forbidden_origin'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'internal'
  | 'backend_unavailable'
  | 'backend_timeout';

/**
 * Codes only the console's session API answers with. They are not answers of the tool pipeline,
 * so they stay out of `ErrorCode` (and out of the error codes the OpenAPI document lists).
 */
export type SessionErrorCode = 'step_up_required';

export abstract class ServiceError extends Error {
  abstract readonly code: ErrorCode | SessionErrorCode;
  readonly details?: unknown;
  constructor(message: string, options?: { details?: unknown; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options?.details !== undefined) this.details = options.details;
  }
}

export class UserInputError extends ServiceError {
  readonly code = 'invalid_input' as const;
}

export class UnauthorizedError extends ServiceError {
  readonly code = 'unauthorized' as const;
  /** Why, for logs and metrics only: clients always see the same message. */
  readonly reason: string;
  constructor(reason: string) {
    super('A valid bearer token with scope mcp:read bound to a project is required.');
    this.reason = reason;
  }
}

export class ForbiddenOriginError extends ServiceError {
  readonly code = 'forbidden_origin' as const;
}

export class NotFoundError extends ServiceError {
  readonly code = 'not_found' as const;
}

/** A known path asked with a method it does not serve; `allow` lists the ones it does. */
export class MethodNotAllowedError extends ServiceError {
  readonly code = 'method_not_allowed' as const;
  constructor(readonly allow: readonly string[]) {
    super(`Method not allowed; use ${allow.join(', ')}.`);
  }
}

/** The request repeats one already done (a replayed signature, a reused idempotency key). */
export class ConflictError extends ServiceError {
  readonly code = 'conflict' as const;
}

export class PayloadTooLargeError extends ServiceError {
  readonly code = 'payload_too_large' as const;
}

export class RateLimitedError extends ServiceError {
  readonly code = 'rate_limited' as const;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export class InternalError extends ServiceError {
  readonly code = 'internal' as const;
}

export class BackendUnavailableError extends ServiceError {
  readonly code = 'backend_unavailable' as const;
  constructor(
    readonly backend: string,
    readonly retryAfterSeconds = 5,
    options?: { cause?: unknown },
  ) {
    super(`The ${backend} service is unavailable; retry later.`, options);
  }
}

export class BackendTimeoutError extends ServiceError {
  readonly code = 'backend_timeout' as const;
  constructor(
    readonly backend: string,
    options?: { cause?: unknown },
  ) {
    super(`The ${backend} service did not answer in time.`, options);
  }
}

/**
 * The engine stopped a query at its time budget: the call asked for more work than one call may
 * do (the message says how to narrow it); the backend itself is fine.
 */
export class QueryBudgetError extends ServiceError {
  readonly code = 'backend_timeout' as const;
}

/**
 * 403 `step_up_required`: the action needs a password check made in the last 5 minutes (identity
 * throws it on its console API; the console reads it back from identity's answer).
 */
export class StepUpRequiredError extends ServiceError {
  readonly code = 'step_up_required' as const;
  constructor() {
    super('Re-verify with POST /console/v1/step-up first (valid for 5 minutes).');
  }
}

/** Anything thrown that is not a ServiceError becomes an opaque internal error. */
export function asServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  return new InternalError('Internal error.', { cause: err });
}

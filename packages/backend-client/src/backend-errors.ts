import {
  BackendUnavailableError,
  InternalError,
  NotFoundError,
  QueryBudgetError,
  RateLimitedError,
  ServiceError,
  UserInputError,
} from '@svc/errors';

/** Errors of the caller's own side (the answer budget's refusals), passed through the breaker as they are. */
const callerSide = new WeakSet<object>();

export function markCallerSide(err: unknown): void {
  if (typeof err === 'object' && err !== null) callerSide.add(err);
}

export function isCallerSide(err: unknown): boolean {
  return typeof err === 'object' && err !== null && callerSide.has(err);
}

/** Answers that say nothing about the backend's health: the breaker counts them as successes. */
export function isCallerError(err: unknown): boolean {
  return (
    isCallerSide(err) ||
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
export class BreakerOpenError extends BackendUnavailableError {}

/** Failing fast for one project whose calls kept failing: the server was not called. */
export class ProjectBreakerOpenError extends BreakerOpenError {
  constructor(backend: string, retryAfterSeconds: number) {
    super(backend, retryAfterSeconds);
    this.message = `The ${backend} service is failing for this project's calls; retry in ${retryAfterSeconds} s.`;
  }
}

const unreachable = new WeakSet<object>();

/** Marks a failure that says the backend cannot be reached at all. */
export function markUnreachable(err: BackendUnavailableError): void {
  unreachable.add(err);
}

/** Transport failures that say the backend cannot be reached at all (not slow, not failing one query). */
export function isUnreachable(err: unknown): boolean {
  if (!(err instanceof BackendUnavailableError) || err instanceof BreakerOpenError) return false;
  return unreachable.has(err);
}

/** The caller went away (its signal aborted); says nothing about the backend. */
export class CancelledError extends InternalError {
  constructor() {
    super('The request was cancelled.');
  }
}

/** What a failed attempt tells its project's breaker: nothing when the backend never had it. */
export function outcomeForProject(err: ServiceError): 'success' | 'failure' | 'none' {
  if (err instanceof BreakerOpenError || err instanceof CancelledError) return 'none';
  return isCallerError(err) ? 'success' : 'failure';
}

/** The `outcome` label of a failed request. */
export function outcomeOf(err: unknown): string {
  if (err instanceof CancelledError) return 'cancelled';
  if (err instanceof BreakerOpenError) return 'breaker_open';
  if (err instanceof ServiceError) return err.code;
  return 'internal';
}

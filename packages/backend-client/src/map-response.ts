import {
  BackendTimeoutError,
  BackendUnavailableError,
  InternalError,
  NotFoundError,
  QueryBudgetError,
  RateLimitedError,
  type ServiceError,
  UserInputError,
} from '@svc/errors';
import { z } from 'zod';

// The documented error body of our own services (docs/internal-api.md). Only a 400 in exactly this
// shape is passed on: those messages are written by our core and describe the caller's input.
const documentedError = z.object({
  error: z.literal('invalid_input'),
  message: z.string().min(1).max(2000),
  details: z.unknown().optional(),
});

// A project of the caller's own asked too much of the core: a full queue of its queries (429), or
// a query stopped at its time budget (504 with details.budget). These describe the caller's load,
// not the core's health, so their text is passed on and the breaker does not count them.
const projectBusy = z.object({ error: z.literal('rate_limited'), message: z.string().min(1).max(2000) });
const budgetExceeded = z.object({
  error: z.literal('backend_timeout'),
  message: z.string().min(1).max(2000),
  details: z.object({ budget: z.literal('time'), limit_ms: z.number() }),
});

export const GENERIC_INPUT_MESSAGE = 'The input was rejected.';

/** A non-2xx answer of a backend, in the error hierarchy. Backend text never reaches a 5xx message. */
export function errorFromStatus(
  backend: string,
  status: number,
  body: string,
  retryAfterSeconds: () => number,
  retryAfterHeader?: string,
): ServiceError {
  if (status === 400) {
    const parsed = documentedError.safeParse(parseJson(body));
    if (parsed.success) {
      return new UserInputError(
        parsed.data.message,
        parsed.data.details === undefined ? undefined : { details: parsed.data.details },
      );
    }
    return new UserInputError(GENERIC_INPUT_MESSAGE);
  }
  if (status === 404) return new NotFoundError('Not found.');
  if (status === 429) {
    const busy = projectBusy.safeParse(parseJson(body));
    if (busy.success) {
      const seconds = Number(retryAfterHeader);
      return new RateLimitedError(busy.data.message, Number.isFinite(seconds) && seconds > 0 ? seconds : 1);
    }
  }
  if (status === 504) {
    const budget = budgetExceeded.safeParse(parseJson(body));
    if (budget.success) return new QueryBudgetError(budget.data.message, { details: budget.data.details });
  }
  if (status === 408 || status === 504) return new BackendTimeoutError(backend);
  if (status === 429 || status >= 500) return new BackendUnavailableError(backend, retryAfterSeconds());
  // 401/403 (a wrong internal secret) and any other status are our own deployment's or code's fault.
  return new InternalError('Internal error.');
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Statuses the breaker must not count: the caller's input, not the backend's health. */
export function isCallerStatus(status: number): boolean {
  return status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status);
}

import {
  BackendTimeoutError,
  BackendUnavailableError,
  InternalError,
  NotFoundError,
  type ServiceError,
  UserInputError,
} from '@svc/tool-kit';
import { z } from 'zod';

// The documented error body of our own services (docs/internal-api.md). Only a 400 in exactly this
// shape is passed on: those messages are written by our core and describe the caller's input.
const documentedError = z.object({
  error: z.literal('invalid_input'),
  message: z.string().min(1).max(2000),
  details: z.unknown().optional(),
});

export const GENERIC_INPUT_MESSAGE = 'The input was rejected.';

/** A non-2xx answer of a backend, in the error hierarchy. Backend text never reaches a 5xx message. */
export function errorFromStatus(
  backend: string,
  status: number,
  body: string,
  retryAfterSeconds: () => number,
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

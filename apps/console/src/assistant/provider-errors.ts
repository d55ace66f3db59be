import { APICallError } from 'ai';
import { waitInWords } from '../identity-api';

// A provider's failure in words a person can act on. The provider's own error text never reaches
// the page (it may echo the request, or name internals): only its status and Retry-After.

/** Seconds to wait from a Retry-After header (seconds, or an HTTP date); undefined if unusable. */
export function retryAfterSeconds(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.max(1, Math.ceil(seconds));
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(1, Math.ceil((at - now) / 1000));
}

function headerOf(headers: Record<string, string> | undefined, name: string): string | undefined {
  const key = Object.keys(headers ?? {}).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers![key];
}

/** The message shown for a model call that failed; `timedOut`: it never started answering in time. */
export function providerErrorMessage(
  err: unknown,
  context: { timedOut: boolean; timeoutMs: number; model: string; now: number },
): string {
  if (context.timedOut) {
    return `The model provider did not answer within ${waitInWords(Math.round(context.timeoutMs / 1000))}. Try again.`;
  }
  if (!APICallError.isInstance(err)) return 'The model call failed. Try again.';
  const status = err.statusCode;
  if (status === undefined) return 'The model provider could not be reached. Try again in a moment.';
  if (status === 401 || status === 403) {
    return `The model provider refused the assistant's API key (HTTP ${status}). An operator sets SVC_ASSISTANT_API_KEY.`;
  }
  if (status === 429) {
    const wait = retryAfterSeconds(headerOf(err.responseHeaders, 'retry-after'), context.now);
    return wait === undefined
      ? 'The model provider is rate limiting the assistant (HTTP 429). Try again in a moment.'
      : `The model provider is rate limiting the assistant (HTTP 429). Try again in ${waitInWords(wait)}.`;
  }
  if (status === 404) return `The model provider does not know the model "${context.model}" (HTTP 404).`;
  if (status >= 500) return `The model provider failed (HTTP ${status}). Try again in a moment.`;
  return `The model provider refused the request (HTTP ${status}).`;
}

import { APICallError } from 'ai';
import { providerErrorMessage, retryAfterSeconds } from './provider-errors';

const context = {
  timedOut: false,
  timeoutMs: 120_000,
  model: 'llama3.1',
  now: Date.parse('2026-01-01T00:00:00Z'),
};
const apiError = (statusCode: number | undefined, headers: Record<string, string> = {}) =>
  new APICallError({
    message: 'provider said: secret internals',
    url: 'http://model.test/v1/chat/completions',
    requestBodyValues: {},
    ...(statusCode === undefined ? {} : { statusCode }),
    responseHeaders: headers,
    responseBody: '{"error":"secret internals"}',
  });

describe('providerErrorMessage', () => {
  it.each([
    [apiError(401), /refused the assistant's API key \(HTTP 401\)/],
    [
      apiError(429, { 'Retry-After': '42' }),
      /rate limiting the assistant \(HTTP 429\)\. Try again in 42 seconds\./,
    ],
    [apiError(429, { 'retry-after': 'Thu, 01 Jan 2026 00:03:00 GMT' }), /Try again in 3 minutes\./],
    [apiError(429), /Try again in a moment\./],
    [apiError(503), /failed \(HTTP 503\)/],
    [apiError(404), /does not know the model "llama3.1"/],
    [apiError(undefined), /could not be reached/],
  ])('%#: words the failure without the provider text', (err, expected) => {
    const message = providerErrorMessage(err, context);
    expect(message).toMatch(expected);
    expect(message).not.toContain('secret');
  });

  it('says when the provider did not start answering in time', () => {
    expect(providerErrorMessage(new Error('aborted'), { ...context, timedOut: true })).toBe(
      'The model provider did not answer within 2 minutes. Try again.',
    );
  });

  it('reads Retry-After as seconds or a date, never less than a second', () => {
    expect(retryAfterSeconds('0', 0)).toBe(1);
    expect(retryAfterSeconds('garbage', 0)).toBeUndefined();
    expect(retryAfterSeconds(undefined, 0)).toBeUndefined();
  });
});

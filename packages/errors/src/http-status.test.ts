import {
  BackendUnavailableError,
  MethodNotAllowedError,
  RateLimitedError,
  StepUpRequiredError,
  UnauthorizedError,
  UserInputError,
} from './errors';
import { ERROR_CODES, toHttpError } from './http-status';

describe('toHttpError', () => {
  it('maps every code to its status, with the headers each needs', () => {
    expect(toHttpError(new UserInputError('bad', { details: [1] }))).toEqual({
      status: 400,
      headers: {},
      body: { error: 'invalid_input', message: 'bad', details: [1] },
    });
    expect(toHttpError(new UnauthorizedError('x')).headers['WWW-Authenticate']).toContain('mcp:read');
    expect(toHttpError(new RateLimitedError('slow down', 2.2)).headers['Retry-After']).toBe('3');
    expect(toHttpError(new BackendUnavailableError('core')).status).toBe(503);
    const notAllowed = toHttpError(new MethodNotAllowedError(['POST']));
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.Allow).toBe('POST');
    expect(notAllowed.body.error).toBe('method_not_allowed');
  });

  it('hides anything that is not a service error behind an opaque 500', () => {
    const answer = toHttpError(new Error('connection refused at 10.0.0.3:9000'));
    expect(answer).toEqual({
      status: 500,
      headers: {},
      body: { error: 'internal', message: 'Internal error.' },
    });
  });

  it('lists every code once', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    expect(ERROR_CODES).toContain('method_not_allowed');
  });

  it("answers the console's step-up refusal with 403 step_up_required, a code the tools never answer", () => {
    expect(toHttpError(new StepUpRequiredError())).toEqual({
      status: 403,
      headers: {},
      body: {
        error: 'step_up_required',
        message: 'Re-verify with POST /console/v1/step-up first (valid for 5 minutes).',
      },
    });
    expect(ERROR_CODES).not.toContain('step_up_required');
  });
});

import {
  asServiceError,
  BackendUnavailableError,
  type ErrorCode,
  MethodNotAllowedError,
  RateLimitedError,
  type SessionErrorCode,
} from './errors';

const TOOL_STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden_origin: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  backend_unavailable: 503,
  backend_timeout: 504,
};

const SESSION_STATUS: Record<SessionErrorCode, number> = {
  step_up_required: 403,
};

const STATUS: Record<ErrorCode | SessionErrorCode, number> = { ...TOOL_STATUS, ...SESSION_STATUS };

export interface HttpErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error: ErrorCode | SessionErrorCode; message: string; details?: unknown };
}

/** The single mapping from the error hierarchy to HTTP. */
export function toHttpError(err: unknown): HttpErrorAnswer {
  const e = asServiceError(err);
  const headers: Record<string, string> = {};
  if (e instanceof RateLimitedError || e instanceof BackendUnavailableError) {
    headers['Retry-After'] = String(Math.max(1, Math.ceil(e.retryAfterSeconds)));
  }
  if (e instanceof MethodNotAllowedError) headers.Allow = e.allow.join(', ');
  if (e.code === 'unauthorized') headers['WWW-Authenticate'] = 'Bearer realm="mcp", scope="mcp:read"';
  const body: HttpErrorAnswer['body'] = { error: e.code, message: e.message };
  if (e.details !== undefined) body.details = e.details;
  return { status: STATUS[e.code], headers, body };
}

export function statusOf(code: ErrorCode | SessionErrorCode): number {
  return STATUS[code];
}

/** Every error code of the tool pipeline, for documents that list them (OpenAPI). */
export const ERROR_CODES = Object.keys(TOOL_STATUS) as ErrorCode[];

export { type CommaListOptions, commaList } from './comma-list';
export {
  ACTOR_HEADER,
  type AnswerAttempt,
  type BackendCallOptions,
  type BackendName,
  type Backends,
  type BackendToolCaller,
  type CallActor,
  type Capability,
  CONTROLLED_CAPABILITIES,
  type Principal,
  type ToolContext,
  type ToolRequestContext,
  type Transport,
} from './context';
export {
  type AnyTool,
  defineTool,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolSpec,
} from './define-tool';
export {
  asServiceError,
  BackendTimeoutError,
  BackendUnavailableError,
  ConflictError,
  type ErrorCode,
  ForbiddenOriginError,
  InternalError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  QueryBudgetError,
  RateLimitedError,
  ServiceError,
  UnauthorizedError,
  UserInputError,
} from './errors';
export { exactlyOneOf } from './exactly-one-of';
export { ERROR_CODES, type HttpErrorAnswer, statusOf, toHttpError } from './http-status';
export { type InputIssue, invalidInputError, parseInput } from './input-errors';
export { keyedRecord } from './keyed-record';
export type { Logger } from './logger';
export {
  FIELD_LIMITS,
  sanitizeAttributes,
  sanitizeOptional,
  sanitizeText,
  TRUNCATION_MARK,
  toWellFormed,
} from './sanitize';
export {
  AGGREGATE_LIMIT_MAX,
  DAYS_MAX,
  days,
  identifier,
  isoDateOrTime,
  isoTimestamp,
  LIST_LIMIT_MAX,
  limit,
  listOf,
  searchText,
  traceId,
  window,
} from './schemas';
export { UnparsedAnswer } from './unparsed-answer';

export { type BodyRefusalWording, fromBodyParser } from './body-parser';
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
  type SessionErrorCode,
  StepUpRequiredError,
  UnauthorizedError,
  UserInputError,
} from './errors';
export { ERROR_CODES, type HttpErrorAnswer, statusOf, toHttpError } from './http-status';
export { type InputIssue, invalidInputError, parseInput } from './input-errors';

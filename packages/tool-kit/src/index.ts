export {
  type BackendCallOptions,
  type BackendName,
  type Backends,
  type BackendToolCaller,
  type Capability,
  CONTROLLED_CAPABILITIES,
  type Principal,
  type ToolContext,
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
  type ErrorCode,
  ForbiddenOriginError,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceError,
  UnauthorizedError,
  UserInputError,
} from './errors';
export { type CallRequest, type ExecutorDeps, ToolExecutor } from './executor';
export { type HttpErrorAnswer, statusOf, toHttpError } from './http-status';
export { toolJsonSchema } from './json-schema';
export { type Logger, silentLogger } from './logger';
export { createMcpServer, type McpServerOptions, toMcpTool, toMcpToolError } from './mcp-binding';
export { buildOpenApiDocument, type OpenApiOptions } from './openapi';
export { ToolRegistry } from './registry';
export { createRestRouter, httpErrorHandler, notFoundHandler, type RestBindingOptions } from './rest-binding';
export {
  AGGREGATE_LIMIT_MAX,
  DAYS_MAX,
  days,
  identifier,
  isoTimestamp,
  LIST_LIMIT_MAX,
  limit,
  listOf,
  searchText,
  traceId,
  window,
} from './schemas';

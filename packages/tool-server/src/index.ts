export {
  AnswerBudget,
  AnswerBudgetBusyError,
  type AnswerBudgetOptions,
  type BudgetTenant,
  DEFAULT_ANSWER_BUDGET,
  type Release,
  type StartTimer,
} from './answer-budget';
export {
  type AnswerChecker,
  AnswerWorkers,
  type AnswerWorkersOptions,
  AnswerWorkersUnavailableError,
  type WorkerCheck,
} from './answer-workers';
export { CallHoldings } from './call-holdings';
export { compactText } from './compact-text';
export {
  CURSOR_MAX_OFFSET,
  CURSOR_TTL_MS,
  type CursorBinding,
  CursorSeal,
  isListPage,
  withNextCursor,
} from './cursor';
export { type CallRequest, type ExecutorDeps, ToolExecutor } from './executor';
export { usageAdvice } from './guidance';
export { allowOnly, httpErrorHandler, notFoundHandler } from './http-errors';
export { mcpOutputSchema, toolJsonSchema } from './json-schema';
export {
  createMcpServer,
  LEGACY_PROTOCOL_VERSIONS,
  type McpEra,
  type McpServerOptions,
  MODERN_PROTOCOL_VERSIONS,
  TOOL_LIST_CACHE_HINT,
  toMcpTool,
  toMcpToolError,
} from './mcp-binding';
export { renderGuide } from './mcp-prompts';
export { type McpToolViewMeta, type McpViewResource, type McpViews, visibleViews } from './mcp-views';
export { buildOpenApiDocument, type OpenApiOptions, SERVICE_INFO } from './openapi';
export { ToolRegistry } from './registry';
export { createRestRouter, REST_TOOL_PATH, type RestBindingOptions } from './rest-binding';
export {
  clientBudgetOf,
  RESULT_BUDGET_HEADER,
  RESULT_BUDGET_META_KEY,
  withinBudget,
} from './result-budget';
export { ToolAnswer } from './tool-answer';
export {
  chosenTools,
  TOOLSETS_HEADER,
  TOOLSETS_QUERY,
  type ToolsetChoice,
  Toolsets,
} from './toolsets';

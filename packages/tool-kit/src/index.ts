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
export { exactlyOneOf } from './exactly-one-of';
export { defineGuide, type GuideArgument, type GuideStep, type InvestigationGuide } from './guide';
export { keyedRecord } from './keyed-record';
export type { Logger } from './logger';
export { fetchFor, type Page, pageOf } from './page';
export { mostThatFit, type PagedAnswer } from './paged-answer';
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
  answerBudgetFields,
  cursor,
  DAYS_MAX,
  DEFAULT_MAX_RESULT_CHARS,
  days,
  identifier,
  isListOutput,
  isoDateOrTime,
  isoTimestamp,
  LIST_LIMIT_MAX,
  limit,
  listOf,
  listPathsOf,
  MAX_RESULT_CHARS_RANGE,
  searchText,
  traceId,
  window,
} from './schemas';
export { UnparsedAnswer } from './unparsed-answer';

export { crashAggregate, crashAggregateInput, crashAggregateOutput } from './crash-aggregate';
export { crashBySignature, crashBySignatureInput, crashBySignatureOutput } from './crash-by-signature';
export { crashByUser, crashByUserInput, crashByUserOutput } from './crash-by-user';
export { crashGet, crashGetInput, crashGetOutput } from './crash-get';
export { crashRecent, crashRecentInput, crashRecentOutput } from './crash-recent';
export {
  crashRecurrence,
  crashRecurrenceInput,
  crashRecurrenceOutput,
  RECURRENCE_VERSIONS,
  sinceInput,
} from './crash-recurrence';
export { crashStats, crashStatsInput, crashStatsOutput, STATS_SIGNATURES_MAX } from './crash-stats';
export {
  CRASH_GROUP_BY,
  type CrashDetail,
  type CrashGroupBy,
  type CrashSummary,
  type CrashWithBreadcrumbs,
  crashDetail,
  crashSummary,
  crashWithBreadcrumbs,
} from './crash-summary';
export { crashSymbolicate, crashSymbolicateInput, crashSymbolicateOutput } from './crash-symbolicate';
export {
  type Breadcrumb,
  breadcrumb,
  type RawFrame,
  rawFrame,
  type SymbolicatedFrame,
  signature,
  symbolicatedFrame,
} from './schemas';
export {
  type DebugFile,
  type DebugFileKind,
  debugFile,
  debugFileKind,
  SYMBOL_LIST_MAX,
  type SymbolPlatform,
  symbolList,
  symbolListInput,
  symbolListOutput,
  symbolPlatform,
} from './symbol-list';
export { crashTools } from './toolset';

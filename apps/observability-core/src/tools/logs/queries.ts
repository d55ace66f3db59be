import type { AnyCoreTool } from '../core-tool';
import { logAggregateQuery } from './log-aggregate';
import { logBySessionQuery } from './log-by-session';
import { logByUserQuery } from './log-by-user';
import { logRecentQuery } from './log-recent';
import { logSearchQuery } from './log-search';

/** The log tools as the core serves them (@svc/tools-logs defines them). */
export const logsQueries: readonly AnyCoreTool[] = [
  logSearchQuery,
  logRecentQuery,
  logByUserQuery,
  logBySessionQuery,
  logAggregateQuery,
];

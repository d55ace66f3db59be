import type { AnyTool } from '@svc/tool-kit';
import { logAggregate } from './log-aggregate';
import { logBySession } from './log-by-session';
import { logByUser } from './log-by-user';
import { logRecent } from './log-recent';
import { logSearch } from './log-search';

export const logsTools: readonly AnyTool[] = [logSearch, logRecent, logByUser, logBySession, logAggregate];

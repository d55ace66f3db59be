import type { AnyCoreTool } from '../core-tool';
import { crashAggregateQuery } from './crash-aggregate';
import { crashBySignatureQuery } from './crash-by-signature';
import { crashByUserQuery } from './crash-by-user';
import { crashGetQuery } from './crash-get';
import { crashRecentQuery } from './crash-recent';
import { crashRecurrenceQuery } from './crash-recurrence';
import { crashStatsQuery } from './crash-stats';
import { crashSymbolicateQuery } from './crash-symbolicate';
import { symbolListQuery } from './symbol-list';

/** The crash and symbol tools as the core serves them (@svc/tools-crash defines them). */
export const crashQueries: readonly AnyCoreTool[] = [
  crashRecentQuery,
  crashGetQuery,
  crashBySignatureQuery,
  crashRecurrenceQuery,
  crashByUserQuery,
  crashAggregateQuery,
  crashStatsQuery,
  symbolListQuery,
  crashSymbolicateQuery,
];

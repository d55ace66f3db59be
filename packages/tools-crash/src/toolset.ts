import type { AnyTool } from '@svc/tool-kit';
import { crashAggregate } from './crash-aggregate';
import { crashBySignature } from './crash-by-signature';
import { crashByUser } from './crash-by-user';
import { crashGet } from './crash-get';
import { crashRecent } from './crash-recent';
import { crashRecurrence } from './crash-recurrence';
import { crashStats } from './crash-stats';
import { crashSymbolicate } from './crash-symbolicate';
import { symbolList } from './symbol-list';

/** The crash and symbol tools, in catalog order. Each lives in its own file. */
export const crashTools: readonly AnyTool[] = [
  crashRecent,
  crashGet,
  crashBySignature,
  crashRecurrence,
  crashByUser,
  crashAggregate,
  crashStats,
  symbolList,
  crashSymbolicate,
];

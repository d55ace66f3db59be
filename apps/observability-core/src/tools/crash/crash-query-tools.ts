import type { AnyCoreTool } from '../core-tool';
import { crashAggregateTool } from './crash-aggregate';
import { crashGetTool } from './crash-get';
import { crashBySignatureTool, crashByUserTool, crashRecentTool } from './crash-lists';
import { crashRecurrenceTool } from './crash-recurrence';
import { crashStatsTool } from './crash-stats';

/** The seven crash query tools (SPEC.md section 4, DESIGN.md section 7). */
export const CRASH_QUERY_TOOLS: readonly AnyCoreTool[] = [
  crashRecentTool,
  crashGetTool,
  crashBySignatureTool,
  crashRecurrenceTool,
  crashByUserTool,
  crashAggregateTool,
  crashStatsTool,
];

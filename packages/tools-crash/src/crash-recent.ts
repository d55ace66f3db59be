import { defineTool, limit, listOf } from '@svc/tool-kit';
import { z } from 'zod';
import { crashWithBreadcrumbs } from './crash-summary';

export const crashRecentInput = z.strictObject({ limit: limit(20) });
export const crashRecentOutput = listOf(crashWithBreadcrumbs);

export const crashRecent = defineTool({
  name: 'crash.recent',
  title: 'Recent crashes',
  description:
    'Returns the most recent crash events, newest first, each with its signature (issue id), error type, ' +
    'message, app version, device OS, user and parsed breadcrumbs. ' +
    "Call crash.stats or crash.aggregate first; crash.get gives one event's stack frames.",
  input: crashRecentInput,
  output: crashRecentOutput,
  capability: 'base',
  backend: 'core',
  example: { limit: 10 },
});

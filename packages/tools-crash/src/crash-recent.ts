import { defineTool, limit, listOf } from '@svc/tool-kit';
import { z } from 'zod';
import { crashWithBreadcrumbs } from './crash-summary';

export const crashRecentInput = z.strictObject({ limit: limit(20) });
export const crashRecentOutput = listOf(crashWithBreadcrumbs);

export const crashRecent = defineTool({
  name: 'crash.recent',
  title: 'Recent crashes',
  description:
    'The most recent crash events, newest first, each with its signature (issue id), error type, ' +
    'message, app version, device OS, user and the breadcrumbs leading up to it as parsed objects. ' +
    'Returns {items, limit, has_more}. Use crash.stats or crash.aggregate first for the overall ' +
    'picture, crash.get for the stack frames of one event.',
  input: crashRecentInput,
  output: crashRecentOutput,
  capability: 'base',
  backend: 'core',
  example: { limit: 10 },
});

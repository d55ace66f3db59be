import { defineTool, identifier, limit, listOf } from '@svc/tool-kit';
import { z } from 'zod';
import { crashSummary } from './crash-summary';

export const crashByUserInput = z.strictObject({
  user_id: identifier('end-user id the crashes belong to'),
  limit: limit(50),
});
export const crashByUserOutput = listOf(crashSummary);

export const crashByUser = defineTool({
  name: 'crash.by_user',
  title: 'Crashes of a user',
  description:
    "One end user's crash events across sessions, newest first. An " +
    "unknown user gives an empty list. For all of a user use user.detail; crash.get shows one event's" +
    ' frames.',
  input: crashByUserInput,
  output: crashByUserOutput,
  capability: 'base',
  backend: 'core',
  example: { user_id: 'user_00042_9f3a' },
});

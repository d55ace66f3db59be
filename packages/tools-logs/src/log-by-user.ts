import { defineTool, identifier, limit, listOf } from '@svc/tool-kit';
import { z } from 'zod';
import { logEntry } from './schemas';

export const logByUserInput = z.strictObject({
  user_id: identifier('end-user id the logs belong to'),
  limit: limit(50),
});
export const logByUserOutput = listOf(logEntry);

export const logByUser = defineTool({
  name: 'log.by_user',
  title: 'Logs of a user',
  description:
    "One end user's log lines across sessions and sources, newest first. " +
    'An unknown user gives an empty list. For all of a user (crashes, events too) use ' +
    'user.detail.',
  input: logByUserInput,
  output: logByUserOutput,
  capability: 'base',
  backend: 'core',
  example: { user_id: 'user_00042_9f3a' },
});

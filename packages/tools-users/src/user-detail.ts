import { defineTool, identifier, limit } from '@svc/tool-kit';
import { feedbackItem, trackEvent } from '@svc/tools-analytics';
import { crashSummary } from '@svc/tools-crash';
import { logEntry } from '@svc/tools-logs';
import { z } from 'zod';
import { channelOf, seenFields, sessionSummary } from './schemas';

export const userDetailInput = z.strictObject({
  user_id: identifier('end-user id'),
  limit: limit(10).describe('Most items per channel.'),
});
export const userDetailOutput = z.strictObject({
  user_id: z.string(),
  found: z.boolean().describe('False when nothing at all exists for this user.'),
  ...seenFields,
  limit: z.number().int(),
  logs: channelOf(logEntry),
  crashes: channelOf(crashSummary),
  events: channelOf(trackEvent),
  feedback: channelOf(feedbackItem),
  sessions: channelOf(sessionSummary),
});

export const userDetail = defineTool({
  name: 'user.detail',
  title: 'Everything about one user',
  description:
    'One end user across channels: logs, crashes, tracking events, feedback and sessions, each newest' +
    ' first up to limit. Returns {user_id, found, first_seen, last_seen, ..., logs, crashes, events, ' +
    'feedback, sessions}, each channel {total, items, has_more}; found is false when nothing exists.',
  input: userDetailInput,
  output: userDetailOutput,
  capability: 'base',
  backend: 'core',
  example: { user_id: 'user_00042_9f3a', limit: 10 },
});

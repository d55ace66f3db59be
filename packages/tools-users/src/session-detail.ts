import { defineTool, identifier, limit } from '@svc/tool-kit';
import { feedbackItem, trackEvent } from '@svc/tools-analytics';
import { crashSummary } from '@svc/tools-crash';
import { logEntry } from '@svc/tools-logs';
import { z } from 'zod';
import { channelOf, seenFields, sessionSummary } from './schemas';

export const sessionDetailInput = z.strictObject({
  session_id: identifier('session id'),
  limit: limit(50).describe('Most items per channel.'),
});
export const sessionDetailOutput = z.strictObject({
  session_id: z.string(),
  found: z.boolean().describe('False when nothing at all exists for this session.'),
  session: sessionSummary.nullable().describe('The session record as last reported; null when none.'),
  user_ids: z.array(z.string()).describe('Distinct users seen in the session, sorted.'),
  ...seenFields,
  limit: z.number().int(),
  logs: channelOf(logEntry),
  crashes: channelOf(crashSummary),
  events: channelOf(trackEvent),
  feedback: channelOf(feedbackItem),
});

export const sessionDetail = defineTool({
  name: 'session.detail',
  title: 'Everything about one session',
  description:
    'One session across channels: its record (status, start, end, platform, version), its logs, ' +
    'crashes, events and feedback, newest first up to limit. Returns {session_id, found, session, ' +
    'user_ids, ..., logs, crashes, events, feedback}; found is false when nothing exists. ' +
    'log.by_session reads the logs oldest first.',
  input: sessionDetailInput,
  output: sessionDetailOutput,
  capability: 'base',
  backend: 'core',
  example: { session_id: 'sess_00042_0003' },
});

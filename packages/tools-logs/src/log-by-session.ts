import { defineTool, identifier, limit, listOf } from '@svc/tool-kit';
import { z } from 'zod';
import { logEntry } from './schemas';

export const logBySessionInput = z.strictObject({
  session_id: identifier('session id'),
  limit: limit(100),
});
export const logBySessionOutput = listOf(logEntry);

export const logBySession = defineTool({
  name: 'log.by_session',
  title: 'Logs of a session',
  description:
    'Returns all log lines of one session, oldest first so the session reads as a story. ' +
    'Find session ids with log.by_user.',
  input: logBySessionInput,
  output: logBySessionOutput,
  capability: 'base',
  backend: 'core',
  example: { session_id: 'sess_00042_0003' },
});

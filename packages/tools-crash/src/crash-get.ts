import { defineTool, identifier } from '@svc/tool-kit';
import { z } from 'zod';
import { crashDetail } from './crash-summary';

export const crashGetInput = z.strictObject({
  event_id: identifier('crash event id (from crash.recent, crash.by_signature or a log line)'),
});
export const crashGetOutput = z.strictObject({
  event_id: z.string(),
  found: z.boolean().describe('False when no crash has this event id; crash is then null.'),
  crash: crashDetail.nullable(),
});

export const crashGet = defineTool({
  name: 'crash.get',
  title: 'One crash',
  description:
    'One crash event by event id with its raw stack frames, breadcrumbs and, once symbolication ran, ' +
    'the symbolicated frames beside the raw ones. Returns {event_id, found, crash}; found is false ' +
    '(crash null) for an unknown id. Find event ids with crash.recent or crash.by_signature; ' +
    'crash.symbolicate (re)maps the frames.',
  input: crashGetInput,
  output: crashGetOutput,
  capability: 'base',
  backend: 'core',
  example: { event_id: 'evt_7f2c9a1b' },
});

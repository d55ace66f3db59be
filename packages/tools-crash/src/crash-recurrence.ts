import { defineTool, isoDateOrTime, isoTimestamp } from '@svc/tool-kit';
import { z } from 'zod';
import { signature } from './schemas';

/** ISO 8601: a date-time with a zone (Z or +hh:mm), or a date alone meaning 00:00 UTC. */
export const sinceInput = isoDateOrTime.describe(
  'ISO 8601 time, e.g. 2026-05-01T12:00:00Z, or a date 2026-05-01 meaning 00:00 UTC.',
);

/** Versions crash.recurrence lists at most. */
export const RECURRENCE_VERSIONS = 50;

export const crashRecurrenceInput = z.strictObject({
  signature,
  since: sinceInput,
});
export const crashRecurrenceOutput = z.strictObject({
  signature: z.string(),
  since: isoTimestamp.describe('`since` as understood, in UTC.'),
  recurred: z.boolean().describe('True iff an event of the signature has a timestamp after `since`.'),
  count_since: z.number().int().describe('Events of the signature after `since`.'),
  first_since: isoTimestamp.nullable().describe('The first event after `since`; null when none.'),
  last_seen: isoTimestamp.nullable().describe('The latest event of the signature; null when none.'),
  total: z.number().int().describe('All stored events of the signature.'),
  versions: z
    .array(
      z.strictObject({
        app_version: z.string(),
        count: z.number().int(),
        count_since: z.number().int(),
        first_seen: isoTimestamp,
        last_seen: isoTimestamp,
      }),
    )
    .describe(
      `The app versions the signature occurred in, by first occurrence; at most ${RECURRENCE_VERSIONS}, the most recently seen.`,
    ),
  version_count: z.number().int().describe('All app versions the signature occurred in.'),
});

export const crashRecurrence = defineTool({
  name: 'crash.recurrence',
  title: 'Did an issue recur?',
  description:
    'Whether a crash issue (signature) happened again after a time, e.g. a fix release: recurred is ' +
    'true iff an event of the signature is later than `since` (ISO 8601). Returns {signature, since, ' +
    'recurred, count_since, first_since, last_seen, total, versions (per app version: events, events ' +
    'since, first and last seen), version_count}. Then crash.by_signature for the events.',
  input: crashRecurrenceInput,
  output: crashRecurrenceOutput,
  capability: 'base',
  backend: 'core',
  example: { signature: '3f9a1c2e7b4d6a80', since: '2026-11-01' },
});

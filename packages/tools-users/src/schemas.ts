import { isoTimestamp } from '@svc/tool-kit';
import { z } from 'zod';

// Shapes of the cross-channel views. Every text in them came from ingest and is returned as data,
// capped and cleaned.

export const SESSION_STATUSES = ['ok', 'crashed', 'anr', 'abnormal'] as const;

/** A session as last reported by the app. */
export const sessionSummary = z.strictObject({
  session_id: z.string(),
  user_id: z.string().nullable(),
  status: z.enum(SESSION_STATUSES),
  started_at: isoTimestamp,
  ended_at: isoTimestamp.nullable(),
  platform: z.string().nullable(),
  app_version: z.string().nullable(),
});
export type SessionSummary = z.infer<typeof sessionSummary>;

/** One channel of a view: the newest `limit` items and how many exist in all. */
export function channelOf<T extends z.ZodType>(item: T) {
  return z.strictObject({
    total: z.number().int().describe('All items of this channel, beyond limit too.'),
    items: z.array(item).describe('Newest first, at most limit.'),
    has_more: z.boolean().describe('True when total exceeds the items returned.'),
  });
}

/** Where and when the id was seen, over every channel. */
export const seenFields = {
  first_seen: isoTimestamp.nullable().describe('Earliest timestamp over all channels; null when none.'),
  last_seen: isoTimestamp.nullable().describe('Latest timestamp over all channels; null when none.'),
  platforms: z.array(z.string()).describe('Distinct platforms seen, sorted.'),
  app_versions: z.array(z.string()).describe('Distinct app versions seen, sorted.'),
};

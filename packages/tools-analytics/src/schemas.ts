import { isoTimestamp, keyedRecord } from '@svc/tool-kit';
import { z } from 'zod';

// Shapes shared by the tracking and feedback tools, the user/session views and the core that
// serves them. Event properties and feedback text are attacker-controlled: they come back as
// data, length-capped and cleaned of invisible and bidirectional control characters.

/** One raw tracking event; `properties` is the parsed JSON object (cleaned, capped), never text. */
export const trackEvent = z.strictObject({
  timestamp: isoTimestamp,
  event_name: z.string(),
  properties: keyedRecord(z.string(), z.unknown()).describe(
    'The event properties as a JSON object; strings capped and cleaned, as data.',
  ),
  platform: z.string().nullable(),
  app_version: z.string().nullable(),
  user_id: z.string().nullable(),
  session_id: z.string().nullable(),
});
export type TrackEvent = z.infer<typeof trackEvent>;

/** One piece of user feedback. */
export const feedbackItem = z.strictObject({
  feedback_id: z.string(),
  timestamp: isoTimestamp,
  user_id: z.string().nullable(),
  session_id: z.string().nullable(),
  message: z.string().describe('What the user wrote, returned as data (capped, cleaned).'),
  rating: z.number().nullable(),
  platform: z.string().nullable(),
  app_version: z.string().nullable(),
});
export type FeedbackItem = z.infer<typeof feedbackItem>;

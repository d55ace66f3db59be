import { isoTimestamp } from '@svc/tool-kit';
import { z } from 'zod';
import { breadcrumb, rawFrame, symbolicatedFrame } from './schemas';

// Shapes returned by the crash query tools.
//
// A crash is identified by its event_id: a re-sent event (the same event_id ingested twice) is one
// crash. The crashes table is a ReplacingMergeTree, which collapses such copies only when parts
// merge, so the core never relies on that: lists keep one row per event_id and every count is a
// count of distinct event ids.
//
// Every text field is attacker-controlled (it came from an app's crash report): it is returned as
// data, with invisible and bidirectional control characters removed and a per-field length cap.

/**
 * When an issue (signature) was first and last seen and in which app versions, over every stored
 * crash of the signature, not only the window asked about: "which release introduced this crash?"
 * in one call. Ties in time go to the smallest version (first) and the largest (last).
 */
export const signatureHistory = {
  first_seen: isoTimestamp.describe('Earliest stored crash of the signature (any window).'),
  last_seen: isoTimestamp.describe('Latest stored crash of the signature (any window).'),
  first_app_version: z.string().describe('App version of the earliest crash: where the issue appeared.'),
  last_app_version: z.string().describe('App version of the latest crash.'),
};

/** One crash in a list: what identifies it and where it happened, without frames. */
export const crashSummary = z.strictObject({
  event_id: z.string(),
  timestamp: isoTimestamp,
  signature: z.string().describe('Issue id: crashes with the same signature are one issue.'),
  error_type: z.string(),
  message: z.string(),
  platform: z.string(),
  app_version: z.string(),
  device_os: z.string(),
  user_id: z.string().nullable(),
  session_id: z.string().nullable(),
  symbolicated: z.boolean().describe('True once symbolication mapped the frames (see crash.get).'),
});
export type CrashSummary = z.infer<typeof crashSummary>;

/** crash.recent items: the summary plus the breadcrumbs (what happened before), as objects. */
export const crashWithBreadcrumbs = crashSummary.extend({
  breadcrumbs: z.array(breadcrumb).describe('Events before the crash, oldest first, parsed objects.'),
});
export type CrashWithBreadcrumbs = z.infer<typeof crashWithBreadcrumbs>;

/** crash.get: everything about one crash. */
export const crashDetail = crashWithBreadcrumbs.extend({
  frames: z.array(rawFrame).describe('Stack frames as ingested, top of the stack first.'),
  symbolicated_frames: z
    .array(symbolicatedFrame)
    .nullable()
    .describe(
      'The same frames after symbolication (an Android frame R8 inlined calls into becomes one frame per inlined method, innermost first); null when symbolication has not run.',
    ),
});
export type CrashDetail = z.infer<typeof crashDetail>;

export const CRASH_GROUP_BY = ['signature', 'error_type', 'device_os', 'app_version', 'user_id'] as const;
export type CrashGroupBy = (typeof CRASH_GROUP_BY)[number];

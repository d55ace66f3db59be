import { isoTimestamp } from '@svc/tool-kit';
import { z } from 'zod';

// Shapes shared by the crash tools and the core that serves them. Crash text, frames and
// breadcrumbs are attacker-controlled: they are returned as data, sanitized and length-capped.

/** A stack frame as ingested, in call order (innermost first). */
export const rawFrame = z.strictObject({
  function: z.string(),
  file: z.string(),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  in_app: z.boolean(),
  address: z.string().nullable(),
  module: z.string().nullable(),
  debug_id: z
    .string()
    .nullable()
    .describe(
      'Module build id as sent (Mach-O UUID, ELF build id, Breakpad id); maps only from a file of that id.',
    ),
});
export type RawFrame = z.infer<typeof rawFrame>;

/** A frame after symbolication: mapped, or left as it was with the reason why. */
export const symbolicatedFrame = rawFrame.extend({
  symbolicated: z.boolean(),
  reason: z.string().nullable().describe('Why the frame stayed unsymbolicated; null when mapped.'),
});
export type SymbolicatedFrame = z.infer<typeof symbolicatedFrame>;

export const breadcrumb = z.strictObject({
  timestamp: isoTimestamp,
  category: z.string(),
  message: z.string(),
  level: z.string().nullable(),
});
export type Breadcrumb = z.infer<typeof breadcrumb>;

/** 16 hex characters, case-insensitive on input, lowercase after parsing. */
export const signature = z
  .string()
  .regex(/^[0-9a-fA-F]{16}$/, 'must be 16 hex characters')
  .transform((v) => v.toLowerCase())
  .describe('Crash signature (issue id): 16 hex characters, case-insensitive.');

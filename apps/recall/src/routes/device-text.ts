import { toWellFormed } from '@svc/tool-kit';
import { z } from 'zod';

// Ids and names a device or a person sends (query parameters, console bodies): stored in
// PostgreSQL, which refuses a NUL in text, and shown back to people and assistants. Control
// characters are refused (400 naming the field) rather than stored; a lone surrogate becomes U+FFFD.

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

export const deviceText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((v) => !CONTROL.test(v), 'must not contain control characters')
    .transform(toWellFormed);

export const deviceId = deviceText(200);

/** PostgreSQL's integer column. */
export const MAX_KEY_VERSION = 2_147_483_647;

/** A calendar day PostgreSQL can store and ISO 8601 can write: years 0001 to 9999. */
export const calendarDay = z.iso
  .date()
  .refine((v) => !v.startsWith('0000-'), 'must be a day of the years 0001 to 9999');

import { z } from 'zod';

/** A device log file as listed: what the device said about it when it uploaded it. */
export const recallFile = z.strictObject({
  file_id: z.string(),
  device_id: z.string(),
  user_id: z.string().nullable(),
  session_id: z
    .string()
    .nullable()
    .describe('The app session the file was written in, when the device said.'),
  file_name: z.string(),
  date: z.iso.date().describe('The day the file covers, as the device reported it.'),
  size_bytes: z.number().int().describe('Size of the encrypted upload.'),
  uploaded_at: z.iso.datetime(),
});
export type RecallFile = z.infer<typeof recallFile>;

export const fileId = z
  .string()
  .regex(/^rf_[0-9a-f]{24}$/, 'must be a file id from log.list_files (rf_ and 24 hex characters)')
  .describe('The file id, from log.list_files.');

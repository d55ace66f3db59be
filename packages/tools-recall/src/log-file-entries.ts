import { defineTool, keyedRecord, limit, searchText } from '@svc/tool-kit';
import { z } from 'zod';
import { fileId, recallFile } from './recall-file';

export const logFileEntriesInput = z.strictObject({
  file_id: fileId,
  level: z
    .string()
    .trim()
    .min(1)
    .max(20)
    .describe('Only entries of this level, compared in any case (error = ERROR).')
    .optional(),
  q: searchText('Case-insensitive literal text in the message or tag.').optional(),
  after_line: z
    .number()
    .int()
    .min(0)
    // A file inflates to at most 100 MiB: it has at most that many lines.
    .max(104_857_600)
    .describe('Entries after this line (next page: scanned_through_line).')
    .optional(),
  limit: limit(500),
});

const entry = z.strictObject({
  line: z.number().int().describe('1-based line of the file.'),
  ts: z.string().describe('The timestamp as the device wrote it.'),
  level: z.string(),
  tag: z.string().nullable(),
  message: z.string(),
  fields: keyedRecord(z.string(), z.unknown()).describe('Any other fields of the entry.'),
});

export const fileProblem = z.strictObject({
  stage: z.enum(['decrypt', 'decompress', 'parse']),
  line: z
    .number()
    .int()
    .nullable()
    .describe(
      'decompress and parse: the line where reading stopped (entries before it are listed); null for decrypt.',
    ),
  message: z.string(),
});

export const logFileEntriesOutput = z.strictObject({
  file_id: z.string(),
  found: z.boolean().describe('False when the project has no file with this id.'),
  file: recallFile.nullable(),
  status: z
    .enum(['ok', 'unreadable'])
    .describe(
      'unreadable: reading stopped at a problem (see problem). ok: none in the lines read so far; one further into the file shows in the call whose reading reaches it.',
    ),
  problem: fileProblem.nullable(),
  lines_read: z
    .number()
    .int()
    .describe('Entries this call read, matching or not: those after after_line up to scanned_through_line.'),
  items: z.array(entry),
  limit: z.number().int(),
  has_more: z
    .boolean()
    .describe(
      'True when reading stopped before the end (page full, or the scan budget of one call used up): call again with after_line = scanned_through_line.',
    ),
  scanned_through_line: z
    .number()
    .int()
    .describe(
      'The last line this call read or passed over: every matching entry up to it was listed (0: nothing could be decrypted).',
    ),
});

export const logFileEntries = defineTool({
  name: 'log.file_entries',
  title: 'Entries of a device log file',
  description:
    'Entries of one recalled device log file, decrypted, in file order; filters level and q (text ' +
    'in message or tag). A call ends at a full page or its scan budget: while has_more, page with ' +
    'after_line = scanned_through_line. Unreadable: status and problem (stage, line), never empty. ' +
    'Each call is recorded in log.audit. Returns the file, status, problem and items: [{line, ts, ' +
    'level, tag, message, fields}]. Find files with log.list_files.',
  input: logFileEntriesInput,
  output: logFileEntriesOutput,
  capability: 'vis_recall',
  backend: 'recall',
  example: { file_id: 'rf_5d2c0a4b7e9f13c8a6b1d0e2', level: 'ERROR' },
});

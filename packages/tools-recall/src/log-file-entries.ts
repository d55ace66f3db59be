import { defineTool, limit, searchText } from '@svc/tool-kit';
import { z } from 'zod';
import { fileId, recallFile } from './recall-file';

export const logFileEntriesInput = z.strictObject({
  file_id: fileId,
  level: z
    .string()
    .trim()
    .min(1)
    .max(20)
    .describe("Only entries of this level (case-insensitive, e.g. 'error').")
    .optional(),
  q: searchText('Case-insensitive literal text in the message or tag.').optional(),
  after_line: z
    .number()
    .int()
    .min(0)
    .max(100_000_000)
    .describe('Only entries after this line number (for the next page: the last line you got).')
    .optional(),
  limit: limit(500),
});

const entry = z.strictObject({
  line: z.number().int().describe('1-based line of the file.'),
  ts: z.string().describe('The timestamp as the device wrote it.'),
  level: z.string(),
  tag: z.string().nullable(),
  message: z.string(),
  fields: z.record(z.string(), z.unknown()).describe('Any other fields of the entry.'),
});

export const fileProblem = z.strictObject({
  stage: z.enum(['decrypt', 'decompress', 'parse']),
  line: z
    .number()
    .int()
    .nullable()
    .describe('For parse: the line where reading stopped (entries before it are listed).'),
  message: z.string(),
});

export const logFileEntriesOutput = z.strictObject({
  file_id: z.string(),
  found: z.boolean().describe('False when the project has no file with this id.'),
  file: recallFile.nullable(),
  status: z
    .enum(['ok', 'unreadable'])
    .describe(
      'unreadable: the file could not be decrypted, decompressed or parsed to its end (see problem).',
    ),
  problem: fileProblem.nullable(),
  lines_read: z.number().int().describe('Entries read from the file (all of it when status is ok).'),
  items: z.array(entry),
  limit: z.number().int(),
  has_more: z.boolean().describe('True when more matching entries follow; page with after_line.'),
});

export const logFileEntries = defineTool({
  name: 'log.file_entries',
  title: 'Entries of a device log file',
  description:
    'The entries of one recalled device log file, decrypted on the server, in file order; filters ' +
    'level and q (text in message or tag); page with after_line. A file that cannot be read says ' +
    'so (status unreadable; problem: the stage and the line where reading stopped), never empty. Every call is recorded in the recall ' +
    'audit trail (log.audit). Returns {file_id, found, file, status, problem, lines_read, items: ' +
    '[{line, ts, level, tag, message, fields}], limit, has_more}. Find files with log.list_files.',
  input: logFileEntriesInput,
  output: logFileEntriesOutput,
  capability: 'vis_recall',
  backend: 'recall',
  example: { file_id: 'rf_5d2c0a4b7e9f13c8a6b1d0e2', level: 'error' },
});

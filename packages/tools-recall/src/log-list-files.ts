import { defineTool, identifier, limit, listOf, searchText } from '@svc/tool-kit';
import { z } from 'zod';
import { recallFile } from './recall-file';

export const logListFilesInput = z.strictObject({
  device_id: identifier('device id').optional(),
  user_id: identifier('end-user id').optional(),
  date: z.iso.date().describe('Only files covering this day (YYYY-MM-DD).').optional(),
  q: searchText(
    'Fuzzy file name match: its characters appear in the name in this order, case-insensitive ' +
      '("crash0311" finds "app-crash-2026-03-11.log").',
  ).optional(),
  limit: limit(50),
});

export const logListFilesOutput = listOf(recallFile);

export const logListFiles = defineTool({
  name: 'log.list_files',
  title: 'Recalled device log files',
  description:
    'Device log files uploaded by the app (recalled or sent after a crash), newest upload first; ' +
    'filters: device_id, user_id, date (the day the file covers) and q, a fuzzy match on the file ' +
    'name. Returns items {file_id, file_name, date, size_bytes, ...}. Then ' +
    'log.file_entries to read one.',
  input: logListFilesInput,
  output: logListFilesOutput,
  capability: 'vis_recall',
  backend: 'recall',
  example: { user_id: 'user_00004_4f78', limit: 10 },
});

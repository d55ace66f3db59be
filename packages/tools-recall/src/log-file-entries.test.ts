import { logFileEntries } from './log-file-entries';

describe('recall tool inputs', () => {
  it('log.file_entries: a file id from log.list_files, limit 500 by default, after_line to page', () => {
    const file_id = 'rf_0123456789abcdef01234567';
    expect(logFileEntries.input.parse({ file_id })).toEqual({ file_id, limit: 500 });
    // A file inflates to at most 100 MiB: after_line reaches every line it can have.
    expect(logFileEntries.input.parse({ file_id, after_line: 104_857_600 }).after_line).toBe(104_857_600);
    for (const bad of [
      {},
      { file_id: 'rf_xyz' },
      { file_id, after_line: -1 },
      { file_id, after_line: 104_857_601 },
      { file_id, limit: 1001 },
    ]) {
      expect(logFileEntries.input.safeParse(bad).success).toBe(false);
    }
  });
});

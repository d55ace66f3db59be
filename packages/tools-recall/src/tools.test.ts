import { logAudit } from './log-audit';
import { logFileEntries } from './log-file-entries';
import { logListFiles } from './log-list-files';
import { recallTools } from './toolset';

describe('recall tool inputs', () => {
  it('are controlled by vis_recall and served by recall', () => {
    expect(recallTools.map((t) => [t.capability, t.backend])).toEqual(
      recallTools.map(() => ['vis_recall', 'recall']),
    );
  });

  it('log.list_files: limit 50 by default; a date is a calendar day', () => {
    expect(logListFiles.input.parse({})).toEqual({ limit: 50 });
    expect(logListFiles.input.parse({ q: ' crash ', date: '2026-11-20' })).toEqual({
      q: 'crash',
      date: '2026-11-20',
      limit: 50,
    });
    for (const bad of [{ date: '2026-11-20T10:00:00Z' }, { q: '' }, { limit: 0 }, { project_id: 'p' }]) {
      expect(logListFiles.input.safeParse(bad).success).toBe(false);
    }
  });

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

  it('log.audit: limit 100 by default; only the three actions', () => {
    expect(logAudit.input.parse({})).toEqual({ limit: 100 });
    expect(logAudit.input.safeParse({ action: 'upload' }).success).toBe(false);
  });
});

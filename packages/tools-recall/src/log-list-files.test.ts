import { logListFiles } from './log-list-files';

describe('recall tool inputs', () => {
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
});

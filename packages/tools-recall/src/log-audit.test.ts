import { logAudit } from './log-audit';

describe('recall tool inputs', () => {
  it('log.audit: limit 100 by default; only the three actions', () => {
    expect(logAudit.input.parse({})).toEqual({ limit: 100 });
    expect(logAudit.input.safeParse({ action: 'upload' }).success).toBe(false);
  });
});

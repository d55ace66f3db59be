import { logAggregate } from './log-aggregate';
import { logBySession } from './log-by-session';
import { logByUser } from './log-by-user';
import { logRecent } from './log-recent';
import { logSearch } from './log-search';

// The input contract of each log tool, as callers see it (the documented defaults).
describe('log tool inputs', () => {
  it('applies the documented default limits', () => {
    expect(logSearch.input.parse({ search: 'x' }).limit).toBe(20);
    expect(logRecent.input.parse({}).limit).toBe(20);
    expect(logByUser.input.parse({ user_id: 'u' }).limit).toBe(50);
    expect(logBySession.input.parse({ session_id: 's' }).limit).toBe(100);
    expect(logAggregate.input.parse({ group_by: 'level' }).limit).toBe(500);
  });

  it('requires the required fields', () => {
    expect(logSearch.input.safeParse({}).success).toBe(false);
    expect(logSearch.input.safeParse({ search: '   ' }).success).toBe(false);
    expect(logByUser.input.safeParse({}).success).toBe(false);
    expect(logBySession.input.safeParse({}).success).toBe(false);
    expect(logAggregate.input.safeParse({}).success).toBe(false);
  });

  it('accepts only the documented enum values', () => {
    expect(logRecent.input.safeParse({ level: 'ERROR' }).success).toBe(true);
    expect(logRecent.input.safeParse({ source: 'device' }).success).toBe(true);
    expect(logRecent.input.safeParse({ source: 'browser' }).success).toBe(false);
    for (const g of ['level', 'user_id', 'platform'])
      expect(logAggregate.input.safeParse({ group_by: g }).success).toBe(true);
    expect(logAggregate.input.safeParse({ group_by: 'message' }).success).toBe(false);
    expect(logAggregate.input.safeParse({ group_by: 'level', limit: 10_000 }).success).toBe(true);
  });
});

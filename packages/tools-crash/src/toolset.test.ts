import { toolJsonSchema } from '@svc/tool-server';
import { crashAggregate } from './crash-aggregate';
import { crashBySignature } from './crash-by-signature';
import { crashByUser } from './crash-by-user';
import { crashGet } from './crash-get';
import { crashRecent } from './crash-recent';
import { crashRecurrence } from './crash-recurrence';
import { crashStats } from './crash-stats';
import { crashTools } from './toolset';

// The input contract of the crash query tools as callers see it (the documented defaults and required fields).
describe('crash tool inputs', () => {
  it('applies the documented defaults', () => {
    expect(crashRecent.input.parse({}).limit).toBe(20);
    expect(crashBySignature.input.parse({ signature: '0123456789abcdef' }).limit).toBe(50);
    expect(crashByUser.input.parse({ user_id: 'u' }).limit).toBe(50);
    expect(crashAggregate.input.parse({ group_by: 'signature' }).limit).toBe(500);
    expect(crashStats.input.parse({})).toEqual({ days: 14 });
  });

  it('requires the required fields', () => {
    expect(crashGet.input.safeParse({}).success).toBe(false);
    expect(crashGet.input.safeParse({ event_id: '  ' }).success).toBe(false);
    expect(crashBySignature.input.safeParse({}).success).toBe(false);
    expect(crashByUser.input.safeParse({}).success).toBe(false);
    expect(crashAggregate.input.safeParse({}).success).toBe(false);
    expect(crashRecurrence.input.safeParse({ signature: '0123456789abcdef' }).success).toBe(false);
    expect(crashRecurrence.input.safeParse({ since: '2024-05-01T00:00:00Z' }).success).toBe(false);
  });

  it('takes signatures as 16 hex characters in any case and answers with lowercase', () => {
    expect(crashBySignature.input.parse({ signature: 'ABCDEF0123456789' }).signature).toBe(
      'abcdef0123456789',
    );
    expect(
      crashRecurrence.input.parse({ signature: 'AbCdEf0123456789', since: '2024-05-01T00:00:00Z' }).signature,
    ).toBe('abcdef0123456789');
    for (const bad of [
      'abcdef012345678',
      'abcdef01234567890',
      'abcdef012345678g',
      ' abcdef0123456789',
      '',
      42,
    ])
      expect(crashBySignature.input.safeParse({ signature: bad }).success).toBe(false);
  });

  it('takes `since` only as ISO 8601', () => {
    const sig = '0123456789abcdef';
    for (const ok of ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.123+02:00', '2024-05-01'])
      expect(crashRecurrence.input.safeParse({ signature: sig, since: ok }).success).toBe(true);
    for (const bad of [
      'yesterday',
      '2024-05-01 12:00:00',
      '05/01/2024',
      '2024-13-01',
      '1714560000000',
      1714560000000,
    ])
      expect(crashRecurrence.input.safeParse({ signature: sig, since: bad }).success).toBe(false);
  });

  it('accepts only the documented group_by values and limits', () => {
    for (const g of ['signature', 'error_type', 'device_os', 'app_version', 'user_id'])
      expect(crashAggregate.input.safeParse({ group_by: g }).success).toBe(true);
    expect(crashAggregate.input.safeParse({ group_by: 'platform' }).success).toBe(false);
    expect(crashAggregate.input.safeParse({ group_by: 'signature', limit: 10_000 }).success).toBe(true);
    expect(crashAggregate.input.safeParse({ group_by: 'signature', limit: 10_001 }).success).toBe(false);
    expect(crashRecent.input.safeParse({ limit: 0 }).success).toBe(false);
    expect(crashRecent.input.safeParse({ limit: 1001 }).success).toBe(false);
    expect(crashStats.input.safeParse({ days: 0 }).success).toBe(false);
    expect(crashStats.input.safeParse({ days: 366 }).success).toBe(false);
    expect(crashStats.input.safeParse({ days: 1.5 }).success).toBe(false);
    expect(crashStats.input.parse({ days: 3, app_version: '2.1.0' })).toEqual({
      days: 3,
      app_version: '2.1.0',
    });
  });

  it('rejects unknown fields and project_id everywhere', () => {
    for (const tool of crashTools) {
      expect(tool.input.safeParse({ project_id: 'p' }).success).toBe(false);
      expect(toolJsonSchema(tool.input, 'input').additionalProperties).toBe(false);
    }
  });

  it('lists the seven query tools in catalog order', () => {
    expect(crashTools.map((t) => t.name).slice(0, 7)).toEqual([
      'crash.recent',
      'crash.get',
      'crash.by_signature',
      'crash.recurrence',
      'crash.by_user',
      'crash.aggregate',
      'crash.stats',
    ]);
  });
});

import { apmMemoryGrowth } from './apm-memory-growth';
import { apmSearch } from './apm-search';
import { apmStats } from './apm-stats';
import { releaseHealth } from './release-health';

// The input contract of the performance tools (SPEC.md section 4 defaults, docs/semantics.md ranges).
describe('apm tool inputs', () => {
  it('apm.stats: days defaults to 14 and stays within 1..365; nothing else is accepted', () => {
    expect(apmStats.input.parse({}).days).toBe(14);
    expect(apmStats.input.safeParse({ days: 0 }).success).toBe(false);
    expect(apmStats.input.safeParse({ days: 366 }).success).toBe(false);
    expect(apmStats.input.safeParse({ days: 1.5 }).success).toBe(false);
    expect(apmStats.input.safeParse({ days: 365 }).success).toBe(true);
    expect(apmStats.input.safeParse({ name: 'fps' }).success).toBe(false);
  });

  it('apm.search: limit defaults to 20 within 1..1000; name trimmed; search non-empty', () => {
    expect(apmSearch.input.parse({})).toEqual({ limit: 20 });
    expect(apmSearch.input.parse({ name: ' fps ' }).name).toBe('fps');
    for (const bad of [{ limit: 0 }, { limit: 1001 }, { search: '' }, { name: '' }, { days: 1 }]) {
      expect(apmSearch.input.safeParse(bad).success).toBe(false);
    }
  });

  it('apm.memory_growth: days 14 and limit 20 by default, in range', () => {
    expect(apmMemoryGrowth.input.parse({})).toEqual({ days: 14, limit: 20 });
    for (const bad of [{ days: 0 }, { limit: 1001 }, { session_id: 's' }]) {
      expect(apmMemoryGrowth.input.safeParse(bad).success).toBe(false);
    }
  });

  it('release.health: exactly one of version or versions (1..10), days 14 by default', () => {
    expect(releaseHealth.input.parse({ version: ' 2.0 ' })).toEqual({ version: '2.0', days: 14 });
    expect(releaseHealth.input.parse({ versions: ['1', '2'], days: 3 })).toEqual({
      versions: ['1', '2'],
      days: 3,
    });
    const eleven = Array.from({ length: 11 }, (_, i) => String(i));
    for (const bad of [
      {},
      { version: '1', versions: ['2'] },
      { versions: [] },
      { versions: eleven },
      { version: '' },
    ]) {
      expect(releaseHealth.input.safeParse(bad).success).toBe(false);
    }
  });
});

import { apmStats } from './apm-stats';

// The input contract of the performance tools (the documented defaults, docs/semantics.md ranges).
describe('apm tool inputs', () => {
  it('apm.stats: days defaults to 14 and stays within 1..365; nothing else is accepted', () => {
    expect(apmStats.input.parse({}).days).toBe(14);
    expect(apmStats.input.safeParse({ days: 0 }).success).toBe(false);
    expect(apmStats.input.safeParse({ days: 366 }).success).toBe(false);
    expect(apmStats.input.safeParse({ days: 1.5 }).success).toBe(false);
    expect(apmStats.input.safeParse({ days: 365 }).success).toBe(true);
    expect(apmStats.input.safeParse({ name: 'fps' }).success).toBe(false);
  });
});

import { apmMemoryGrowth } from './apm-memory-growth';

// The input contract of the performance tools (the documented defaults, docs/semantics.md ranges).
describe('apm tool inputs', () => {
  it('apm.memory_growth: days 14 and limit 20 by default, in range', () => {
    expect(apmMemoryGrowth.input.parse({})).toEqual({ days: 14, limit: 20 });
    for (const bad of [{ days: 0 }, { limit: 1001 }, { session_id: 's' }]) {
      expect(apmMemoryGrowth.input.safeParse(bad).success).toBe(false);
    }
  });
});

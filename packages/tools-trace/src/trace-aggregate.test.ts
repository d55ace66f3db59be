import { traceAggregate } from './trace-aggregate';

describe('trace tool inputs', () => {
  it('trace.aggregate: 14 days and 100 operations by default, up to 10000', () => {
    expect(traceAggregate.input.parse({})).toEqual({ days: 14, limit: 100 });
    expect(traceAggregate.input.parse({ limit: 10000 }).limit).toBe(10000);
    for (const bad of [{ days: 0 }, { days: 366 }, { limit: 10001 }, { operation: 'x' }]) {
      expect(traceAggregate.input.safeParse(bad).success).toBe(false);
    }
  });
});

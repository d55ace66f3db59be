import { traceSearch } from './trace-search';

describe('trace tool inputs', () => {
  it('trace.search: limit 50 by default, filters validated', () => {
    expect(traceSearch.input.parse({})).toEqual({ limit: 50 });
    expect(traceSearch.input.parse({ operation: ' GET /cart ', status: 'error' })).toEqual({
      operation: 'GET /cart',
      status: 'error',
      limit: 50,
    });
    for (const bad of [{ status: 'ERROR' }, { min_duration_ms: -1 }, { limit: 1001 }, { trace_id: 'x' }]) {
      expect(traceSearch.input.safeParse(bad).success).toBe(false);
    }
  });
});

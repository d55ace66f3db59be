import { traceTools } from './toolset';
import { traceAggregate } from './trace-aggregate';
import { traceGet } from './trace-get';
import { traceSearch } from './trace-search';

describe('trace tool inputs', () => {
  it('are controlled by vis_trace', () => {
    expect(traceTools.map((t) => t.capability)).toEqual(traceTools.map(() => 'vis_trace'));
  });

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

  it('trace.get: one 32-hex trace id, lowercased', () => {
    const id = '4BF92F3577B34DA6A3CE929D0E0E4736';
    expect(traceGet.input.parse({ trace_id: id })).toEqual({ trace_id: id.toLowerCase() });
    for (const bad of [
      {},
      { trace_id: id.slice(1) },
      { trace_id: `${id.slice(1)}g` },
      { trace_id: id, limit: 1 },
    ]) {
      expect(traceGet.input.safeParse(bad).success).toBe(false);
    }
  });

  it('trace.aggregate: 14 days and 100 operations by default, up to 10000', () => {
    expect(traceAggregate.input.parse({})).toEqual({ days: 14, limit: 100 });
    expect(traceAggregate.input.parse({ limit: 10000 }).limit).toBe(10000);
    for (const bad of [{ days: 0 }, { days: 366 }, { limit: 10001 }, { operation: 'x' }]) {
      expect(traceAggregate.input.safeParse(bad).success).toBe(false);
    }
  });
});

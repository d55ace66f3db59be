import { TRACE_GET_DEFAULT_SPANS, TRACE_GET_MAX_SPANS, traceGet } from './trace-get';

describe('trace tool inputs', () => {
  it('trace.get: one 32-hex trace id, lowercased', () => {
    const id = '4BF92F3577B34DA6A3CE929D0E0E4736';
    expect(traceGet.input.parse({ trace_id: id })).toEqual({
      trace_id: id.toLowerCase(),
      limit: TRACE_GET_DEFAULT_SPANS,
    });
    for (const bad of [
      {},
      { trace_id: id.slice(1) },
      { trace_id: `${id.slice(1)}g` },
      { trace_id: id, days: 1 },
      { trace_id: id, limit: TRACE_GET_MAX_SPANS + 1 },
    ]) {
      expect(traceGet.input.safeParse(bad).success).toBe(false);
    }
  });
});

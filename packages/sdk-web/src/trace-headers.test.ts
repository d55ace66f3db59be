import { newSpanId, newTraceId } from '@svc/sdk-core';
import { syncScope } from './scope';
import { traceHeaders } from './trace-headers';

describe('traceHeaders and the synchronous scope', () => {
  const span = { traceId: newTraceId(), spanId: newSpanId(), sampled: true, parentSpanId: undefined };

  it('gives the active span inside it, nothing outside, and the outer span back after an inner one', () => {
    expect(traceHeaders()).toEqual({});
    const inner = { ...span, spanId: newSpanId(), sampled: false };
    syncScope.run(span, () => {
      expect(traceHeaders()).toEqual({ traceparent: `00-${span.traceId}-${span.spanId}-01` });
      syncScope.run(inner, () => {
        expect(traceHeaders()).toEqual({ traceparent: `00-${span.traceId}-${inner.spanId}-00` });
      });
      expect(syncScope.active()).toBe(span);
    });
    expect(syncScope.active()).toBeUndefined();
  });

  it('restores the outer span when the code inside throws', () => {
    expect(() =>
      syncScope.run(span, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(syncScope.active()).toBeUndefined();
  });

  it('names a given span over the active one', () => {
    const other = { context: { traceId: newTraceId(), spanId: newSpanId(), sampled: true } };
    syncScope.run(span, () => {
      expect(traceHeaders(other).traceparent).toContain(other.context.spanId);
    });
  });
});

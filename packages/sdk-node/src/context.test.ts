import { newSpanId, newTraceId } from '@svc/sdk-core';
import { activeSpan, runInSpan, traceFields } from './context';

describe('the active span', () => {
  it('follows async work started inside it, and nothing outside', async () => {
    const span = { traceId: newTraceId(), spanId: newSpanId(), sampled: true, parentSpanId: undefined };
    expect(activeSpan()).toBeUndefined();
    const seen = await runInSpan(span, async () => {
      await new Promise((r) => setTimeout(r, 5));
      return new Promise((resolve) => setImmediate(() => resolve(activeSpan())));
    });
    expect(seen).toBe(span);
    expect(activeSpan()).toBeUndefined();
  });

  it('gives log lines written inside a span its trace and span ids (a pino mixin)', () => {
    const span = { traceId: newTraceId(), spanId: newSpanId(), sampled: false, parentSpanId: newSpanId() };
    expect(traceFields()).toEqual({});
    expect(runInSpan(span, traceFields)).toEqual({ trace_id: span.traceId, span_id: span.spanId });
  });

  it('nests: an inner span is active inside, the outer one again after', () => {
    const outer = { traceId: newTraceId(), spanId: newSpanId(), sampled: true, parentSpanId: undefined };
    const inner = { ...outer, spanId: newSpanId(), parentSpanId: outer.spanId };
    runInSpan(outer, () => {
      runInSpan(inner, () => expect(activeSpan()).toBe(inner));
      expect(activeSpan()).toBe(outer);
    });
  });
});

describe('ids', () => {
  it('are lowercase hex of the W3C lengths, never all zero, and differ', () => {
    const traces = new Set(Array.from({ length: 1000 }, newTraceId));
    const spans = new Set(Array.from({ length: 1000 }, newSpanId));
    expect(traces.size).toBe(1000);
    expect(spans.size).toBe(1000);
    for (const id of traces) expect(id).toMatch(/^(?!0+$)[0-9a-f]{32}$/);
    for (const id of spans) expect(id).toMatch(/^(?!0+$)[0-9a-f]{16}$/);
  });
});

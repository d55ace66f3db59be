import type { SpanScope } from './context';
import { collectingExporter } from './testing/collecting-exporter';
import { createTracerIn } from './tracer';

// A span the core would refuse fails the whole batch it travels in (every other span, and a
// mobile app's events and metrics beside them): a span is cut to the ingest format's bounds.

const noScope: SpanScope = { active: () => undefined, run: (_span, fn) => fn() };

it('cuts the operation to 500 characters and keeps at most 64 attributes with keys of 1 to 200', () => {
  const exporter = collectingExporter();
  const tracer = createTracerIn(
    { scope: noScope, exporter: () => exporter, logSource: 'device' },
    { service: 's', exporter },
  );
  const span = tracer.startSpan(`GET api.example.com/${'segment/'.repeat(100)}`);
  for (let i = 0; i < 70; i++) span.setAttribute(`key${i}`, i);
  span.setAttribute('', 'empty key');
  span.setAttribute('k'.repeat(201), 'long key');
  span.setAttribute('key0', 'replaced');
  span.end();
  const [reported] = exporter.spans;
  expect(reported!.operation).toBe(`GET api.example.com/${'segment/'.repeat(100)}`.slice(0, 500));
  expect(Object.keys(reported!.attributes!)).toEqual(Array.from({ length: 64 }, (_, i) => `key${i}`));
  expect(reported!.attributes!.key0).toBe('replaced');
});

import { fnv1a32, isSampled, newSpanId, newTraceId } from '@svc/sdk-core';
import vectors from '@svc/sdk-core/fixtures/sampling.json';

// What the SDK needs of the engine: Hermes has TextEncoder (React Native 0.74+) but TextDecoder
// only from React Native 0.85; crypto.getRandomValues comes from react-native-get-random-values.

describe('the shared core on an engine without TextDecoder', () => {
  it('has no TextDecoder here, as Hermes before React Native 0.85', () => {
    expect(typeof (globalThis as { TextDecoder?: unknown }).TextDecoder).toBe('undefined');
  });

  it('makes W3C trace and span ids', () => {
    const traces = Array.from({ length: 300 }, newTraceId);
    const spans = Array.from({ length: 300 }, newSpanId);
    for (const id of traces) expect(id).toMatch(/^(?!0+$)[0-9a-f]{32}$/);
    for (const id of spans) expect(id).toMatch(/^(?!0+$)[0-9a-f]{16}$/);
    expect(new Set(traces).size).toBe(300);
  });

  // The vectors every SDK shares (sdk-core's copy of the shared test vectors, checked equal there).
  it.each(vectors.vectors)(
    'samples trace $trace_id as the shared vectors say',
    ({ trace_id, hash, sampled }) => {
      expect(fnv1a32(trace_id).toString(16).padStart(8, '0')).toBe(hash);
      for (const [rate, kept] of Object.entries(sampled))
        expect(isSampled(trace_id, Number(rate))).toBe(kept);
    },
  );
});

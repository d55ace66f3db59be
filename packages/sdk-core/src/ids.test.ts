import { newSpanId, newTraceId } from './ids';

describe('trace and span ids', () => {
  it('are lowercase hex of 32 and 16 characters, distinct across many refills of the pool', () => {
    // 4 KB of random bytes a refill: 10,000 of each go through about 60 refills.
    const traces = Array.from({ length: 10_000 }, newTraceId);
    const spans = Array.from({ length: 10_000 }, newSpanId);
    expect(traces.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(spans.every((id) => /^[0-9a-f]{16}$/.test(id))).toBe(true);
    expect(new Set(traces).size).toBe(traces.length);
    expect(new Set(spans).size).toBe(spans.length);
  });

  it('use every hex digit about equally often (the pool is written out right)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) for (const c of newTraceId()) counts.set(c, (counts.get(c) ?? 0) + 1);
    // 128,000 digits, 8000 expected per digit; 6 standard deviations is about 530.
    expect([...counts.keys()].sort().join('')).toBe('0123456789abcdef');
    for (const n of counts.values()) expect(Math.abs(n - 8000)).toBeLessThan(600);
  });

  it('are never all zero: a zero id is skipped (W3C Trace Context calls it invalid)', () => {
    const real = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
    // The next refills give zeros only, then random bytes again.
    let zeroFills = 2;
    const stub = ((array: Uint8Array) => {
      if (zeroFills-- > 0) return array.fill(0);
      return real(array);
    }) as typeof globalThis.crypto.getRandomValues;
    const descriptor = Object.getOwnPropertyDescriptor(
      Object.getPrototypeOf(globalThis.crypto),
      'getRandomValues',
    );
    Object.defineProperty(globalThis.crypto, 'getRandomValues', { value: stub, configurable: true });
    try {
      // Use up what is left of the pool, so that the zero refills come next.
      const seen: string[] = [];
      for (let i = 0; i < 300; i++) seen.push(newTraceId(), newSpanId());
      expect(zeroFills).toBeLessThan(0);
      expect(seen.some((id) => /^0+$/.test(id))).toBe(false);
    } finally {
      delete (globalThis.crypto as { getRandomValues?: unknown }).getRandomValues;
      if (descriptor && !('getRandomValues' in globalThis.crypto))
        Object.defineProperty(Object.getPrototypeOf(globalThis.crypto), 'getRandomValues', descriptor);
    }
    expect(/^[0-9a-f]{32}$/.test(newTraceId())).toBe(true);
  });
});

import { TokenBuckets } from './token-bucket';

const NOW = 1_000_000_000;

describe('TokenBuckets', () => {
  it('gives a burst, then one token per 1/rate seconds, never more than the burst', () => {
    const buckets = new TokenBuckets({ capacity: 3, perSecond: 0.5 });
    expect([1, 2, 3].map(() => buckets.take('a', NOW).ok)).toEqual([true, true, true]);
    expect(buckets.take('a', NOW)).toEqual({ ok: false, retryAfterMs: 2000 });
    expect(buckets.take('a', NOW + 1000)).toEqual({ ok: false, retryAfterMs: 1000 });
    expect(buckets.take('a', NOW + 2000).ok).toBe(true);
    expect(buckets.take('a', NOW + 2000).ok).toBe(false);
    // A day idle: back to the burst, not more.
    expect(buckets.level('a', NOW + 86_400_000)).toBe(3);
    // Other keys are untouched.
    expect(buckets.take('b', NOW).ok).toBe(true);
  });

  it('a refused take costs nothing, and the wait never grows however often it is refused', () => {
    const buckets = new TokenBuckets({ capacity: 1, perSecond: 0.2 });
    buckets.take('a', NOW);
    const waits = Array.from({ length: 1000 }, () => buckets.take('a', NOW));
    expect(waits.every((w) => !w.ok && w.retryAfterMs === 5000)).toBe(true);
    expect(buckets.peek('a', NOW + 5000).ok).toBe(true);
  });

  it('keeps at most its bound of keys, forgetting idle (full) ones first', () => {
    const buckets = new TokenBuckets({ capacity: 2, perSecond: 1 }, 100);
    buckets.take('busy', NOW);
    buckets.take('busy', NOW);
    for (let i = 0; i < 500; i++) buckets.take(`k${i}`, NOW + i * 10_000);
    expect(buckets.size).toBeLessThanOrEqual(101);
  });
});

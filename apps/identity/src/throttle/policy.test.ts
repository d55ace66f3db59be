import { countFailure, FORGET_AFTER_MS, lockAfter, THROTTLE_RULES, verdict } from './policy';

const NOW = 1_000_000_000;

describe('lockAfter', () => {
  it('is free up to the free failures, then grows by its factor up to its maximum', () => {
    for (const rule of Object.values(THROTTLE_RULES)) {
      const locks = Array.from({ length: 60 }, (_, i) => lockAfter(rule, i + 1));
      expect(locks.slice(0, rule.freeFailures)).toEqual(Array(rule.freeFailures).fill(0));
      expect(locks[rule.freeFailures]).toBe(rule.baseMs);
      for (let i = rule.freeFailures + 1; i < locks.length; i++) {
        const [before, after] = [locks[i - 1]!, locks[i]!];
        // Each failure multiplies the lock by the rule's factor until the maximum holds it.
        if (after < rule.maxMs) expect(after / before).toBeCloseTo(rule.growth, 2);
        else expect(before * rule.growth).toBeGreaterThanOrEqual(rule.maxMs * 0.999);
      }
      expect(locks.at(-1)).toBe(rule.maxMs);
      // Every lock is shorter than the window a counter is remembered for.
      expect(rule.maxMs).toBeLessThan(FORGET_AFTER_MS);
    }
  });

  it("caps the account's lock (what other people's failures do to its owner) at 5 minutes", () => {
    expect(THROTTLE_RULES.account.maxMs).toBe(5 * 60_000);
  });
});

describe('countFailure', () => {
  it('counts on within the window and starts over after it', () => {
    const first = countFailure('pair', undefined, NOW);
    expect(first).toEqual({ failures: 1, lastFailureAt: NOW, lockedUntil: NOW });
    const next = countFailure('pair', { ...first, failures: 5 }, NOW + 10);
    expect(next).toEqual({ failures: 6, lastFailureAt: NOW + 10, lockedUntil: NOW + 10 + 1000 });
    expect(countFailure('pair', next, NOW + 10 + FORGET_AFTER_MS).failures).toBe(1);
  });
});

describe('verdict', () => {
  const lockedFor = (ms: number) => ({ failures: 30, lastFailureAt: NOW, lockedUntil: NOW + ms });

  it('holds back for the longest lock, naming its counter', () => {
    expect(verdict({ pair: lockedFor(1000), account: lockedFor(5000) }, false, NOW)).toEqual({
      waitMs: 5000,
      scope: 'account',
    });
    expect(verdict({ pair: lockedFor(0) }, false, NOW)).toEqual({ waitMs: 0 });
  });

  it('lets an address in good standing past the account and address locks, not past its own', () => {
    const counters = { account: lockedFor(300_000), address: lockedFor(900_000) };
    expect(verdict(counters, true, NOW)).toEqual({ waitMs: 0 });
    expect(verdict({ ...counters, pair: lockedFor(2000) }, true, NOW)).toEqual({
      waitMs: 2000,
      scope: 'pair',
    });
  });
});

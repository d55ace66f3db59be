// How failed password checks slow down further ones (docs/console.md, "Sign-in throttling").
// Pure: no store, no clock of its own, so it is tested by counting and carries over unchanged.
//
// Three counters, each of failed checks: of an account from one client address (a pair), of an
// account from every address, and of an address over every account (password spraying). Past its
// free failures a counter locks further checks for a time that grows with each failure counted
// after it: quickly for a pair (the attacker's own address), slowly and only up to 5 minutes for an
// account (so nobody can lock its owner out for long), quickly for an address. A check refused while
// locked is answered 429 with Retry-After without looking at the password, and is not counted.
// A counter forgets its failures one hour after the last one: longer than any lock, so a guesser who
// waits out each lock stays at the longest one. An address that signed in to the account within
// the last 30 days is in good standing with it: the account's and the address's counters (what
// other people's failures drive) do not hold it back, only its own pair's.

export type ThrottleScope = 'pair' | 'account' | 'address';

export interface ThrottleRule {
  /** Failures counted before any lock. */
  freeFailures: number;
  /** The lock after the first failure past the free ones. */
  baseMs: number;
  /** Each further failure multiplies the lock by this. */
  growth: number;
  maxMs: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

export const THROTTLE_RULES: Record<ThrottleScope, ThrottleRule> = {
  // 1 s, 2 s, 4 s ... up to 15 minutes from the 16th failure on.
  pair: { freeFailures: 5, baseMs: SECOND, growth: 2, maxMs: 15 * MINUTE },
  // 5 s, 7.5 s, 11 s ... up to 5 minutes from the 22nd failure on.
  account: { freeFailures: 10, baseMs: 5 * SECOND, growth: 1.5, maxMs: 5 * MINUTE },
  // 1 s, 2 s, 4 s ... up to 15 minutes from the 31st failure on.
  address: { freeFailures: 20, baseMs: SECOND, growth: 2, maxMs: 15 * MINUTE },
};

/** A counter's failures are forgotten this long after its last one. */
export const FORGET_AFTER_MS = 60 * MINUTE;
/** A successful sign-in keeps its address in good standing with the account this long. */
export const GOOD_STANDING_MS = 30 * 24 * 60 * MINUTE;

/** The lock after the `failures`-th counted failure (0 within the free ones). */
export function lockAfter(rule: ThrottleRule, failures: number): number {
  const past = failures - rule.freeFailures;
  if (past <= 0) return 0;
  return Math.min(rule.maxMs, Math.round(rule.baseMs * rule.growth ** (past - 1)));
}

/** A counter as stored: failures counted so far and the last one's time (ms since the epoch). */
export interface Counter {
  failures: number;
  lastFailureAt: number;
  lockedUntil: number;
}

/** The failures a counter holds at `now`: none once forgotten. */
export const liveFailures = (counter: Counter | undefined, now: number): number =>
  counter && now - counter.lastFailureAt < FORGET_AFTER_MS ? counter.failures : 0;

/** The counter after one more failure at `now` (counted before the password is checked). */
export function countFailure(scope: ThrottleScope, counter: Counter | undefined, now: number): Counter {
  const failures = liveFailures(counter, now) + 1;
  return { failures, lastFailureAt: now, lockedUntil: now + lockAfter(THROTTLE_RULES[scope], failures) };
}

export interface Verdict {
  /** Milliseconds to wait; 0: the password may be checked now. */
  waitMs: number;
  /** The counter that holds the check back (the longest wait). */
  scope?: ThrottleScope;
}

/**
 * Whether a check may happen at `now`. `goodStanding`: the address signed in to the account
 * within GOOD_STANDING_MS, so only its own pair counter applies.
 */
export function verdict(
  counters: Partial<Record<ThrottleScope, Counter>>,
  goodStanding: boolean,
  now: number,
): Verdict {
  const scopes: ThrottleScope[] = goodStanding ? ['pair'] : ['pair', 'account', 'address'];
  let result: Verdict = { waitMs: 0 };
  for (const scope of scopes) {
    const waitMs = (counters[scope]?.lockedUntil ?? 0) - now;
    if (waitMs > result.waitMs) result = { waitMs, scope };
  }
  return result;
}

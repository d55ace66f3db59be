// A rate per key (a client address, a client_id): each key holds up to `capacity` tokens, one is
// taken per counted request, and they come back at `perSecond`. A key that ran dry is held back
// only until its next token is back (never a growing lock), so whoever shares the key gets going
// again within seconds of the flood slowing down. Pure but for its map; time comes from the caller.

export interface BucketRule {
  /** The burst: requests a fresh key may make at once. */
  capacity: number;
  /** Tokens returned per second (the sustained rate). */
  perSecond: number;
}

export type Take = { ok: true } | { ok: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** Keys kept at most (each some 100 bytes); past it, idle keys go first, then the least recent. */
export const MAX_KEYS = 20_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly rule: BucketRule,
    private readonly maxKeys = MAX_KEYS,
  ) {}

  /** The tokens `key` holds at `now` (ms since the epoch). */
  level(key: string, now: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.rule.capacity;
    const refilled = ((now - bucket.at) / 1000) * this.rule.perSecond;
    return Math.min(this.rule.capacity, bucket.tokens + Math.max(0, refilled));
  }

  /** Whether `key` holds a token now (nothing is taken). */
  peek(key: string, now: number): Take {
    const tokens = this.level(key, now);
    if (tokens >= 1) return { ok: true };
    return { ok: false, retryAfterMs: Math.ceil(((1 - tokens) / this.rule.perSecond) * 1000) };
  }

  /** Takes one token of `key`, or says how long until one is back. */
  take(key: string, now: number): Take {
    const verdict = this.peek(key, now);
    if (!verdict.ok) return verdict;
    const tokens = this.level(key, now);
    // Re-inserted so that the map's order is least recently used first.
    this.buckets.delete(key);
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > this.maxKeys) this.shrink(now);
    return { ok: true };
  }

  get size(): number {
    return this.buckets.size;
  }

  /**
   * Forgets full buckets (a full one is the same as none), then the least recently used until a
   * tenth of the room is free. Dropping a bucket that is not full hands its key a fresh burst,
   * which takes more live keys than the bound: one client cannot cause it alone.
   */
  private shrink(now: number): void {
    for (const [key] of this.buckets) {
      if (this.level(key, now) >= this.rule.capacity) this.buckets.delete(key);
    }
    const target = Math.floor(this.maxKeys * 0.9);
    for (const [key] of this.buckets) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(key);
    }
  }
}

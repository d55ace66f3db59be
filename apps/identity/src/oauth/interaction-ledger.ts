// The sign-ins in progress (oidc-provider's interactions, each a stored row until it is answered
// or expires): how many one client address holds and how many there are in all, so that a flood of
// anonymous /oauth/auth starts cannot grow the store without bound. A start takes a place before
// the interaction is stored and confirms it with the interaction's uid; a place frees when the
// interaction is destroyed (the browser came back to /oauth/auth/<uid>) or expires. Kept in the
// process: after a restart the count starts from nothing while the rows of before run out (10
// minutes at most), so the store holds at most twice the total for that long.

export interface LedgerLimits {
  perAddress: number;
  total: number;
}

export type Admission =
  | { ok: true; place: Place }
  | { ok: false; scope: 'address' | 'total'; retryAfterMs: number };

export interface Place {
  readonly address: string;
  uid?: string;
  expiresAt: number;
}

export class InteractionLedger {
  /** Places in the order they expire (every interaction lives the same time). */
  private readonly places = new Map<Place, true>();
  private readonly byUid = new Map<string, Place>();
  private readonly perAddress = new Map<string, number>();

  constructor(
    readonly limits: LedgerLimits,
    private readonly ttlMs: number,
  ) {}

  /** A place for a new interaction of `address`, unless that address or everyone holds the most. */
  admit(address: string, now: number): Admission {
    this.expire(now);
    const oldestEnd = (held: Iterable<Place>) => {
      for (const place of held) return Math.max(1, place.expiresAt - now);
      return this.ttlMs;
    };
    if ((this.perAddress.get(address) ?? 0) >= this.limits.perAddress) {
      const own = [...this.places.keys()].filter((p) => p.address === address);
      return { ok: false, scope: 'address', retryAfterMs: oldestEnd(own) };
    }
    if (this.places.size >= this.limits.total) {
      return { ok: false, scope: 'total', retryAfterMs: oldestEnd(this.places.keys()) };
    }
    const place: Place = { address, expiresAt: now + this.ttlMs };
    this.places.set(place, true);
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    return { ok: true, place };
  }

  /** The interaction `uid` now holds `place`. */
  confirm(place: Place, uid: string): void {
    if (!this.places.has(place)) return;
    place.uid = uid;
    this.byUid.set(uid, place);
  }

  /**
   * An interaction made without a start (a resume that asks again: it destroyed its own first, so
   * the count does not grow), held like the others.
   */
  track(address: string, uid: string, now: number): void {
    const place: Place = { address, expiresAt: now + this.ttlMs };
    this.places.set(place, true);
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    this.confirm(place, uid);
  }

  /** A place taken but never confirmed (the request ended without an interaction). */
  release(place: Place): void {
    if (place.uid === undefined) this.drop(place);
  }

  /** The interaction `uid` is gone (answered and resumed, or destroyed). */
  end(uid: string): void {
    const place = this.byUid.get(uid);
    if (place) this.drop(place);
  }

  /** Interactions held: by `address`, or in all. */
  held(address?: string): number {
    return address === undefined ? this.places.size : (this.perAddress.get(address) ?? 0);
  }

  private drop(place: Place): void {
    if (!this.places.delete(place)) return;
    if (place.uid !== undefined) this.byUid.delete(place.uid);
    const left = (this.perAddress.get(place.address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(place.address, left);
    else this.perAddress.delete(place.address);
  }

  private expire(now: number): void {
    for (const place of this.places.keys()) {
      if (place.expiresAt > now) break;
      this.drop(place);
    }
  }
}

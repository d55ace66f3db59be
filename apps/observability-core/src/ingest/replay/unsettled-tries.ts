/** A time no later than `bound`, if there is one (-Infinity: there is none). */
const notAfter = (ms: number, bound: number) => bound !== Number.NEGATIVE_INFINITY && ms <= bound;

/**
 * The tries that may have stored rows unknown to memory: this process's tries not (yet)
 * accepted, at most `entries` (oldest forgotten first), and the tries of other processes, which
 * may have stored rows until `othersStoredUntil`.
 */
export class UnsettledTries {
  /** Requests this process tried and did not (yet) accept, by slot: when tried. */
  private readonly unsettled = new Map<string, number>();
  /** When the newest unsettled try memory had to drop was made: before it, tries are unknown. */
  private newestForgottenTry = Number.NEGATIVE_INFINITY;

  /**
   * `othersStoredUntil`: no other process stored rows after this: a sole writer's start, or once
   * loaded the newest part of an ingest table when it started (-Infinity: none, a new store).
   * Another writer (a server's other replicas) may store rows any time (+Infinity).
   */
  constructor(
    private readonly entries: number,
    private othersStoredUntil: number,
  ) {}

  /** Another process stored rows no later than `ms` (what a load found). */
  othersStoredNoLaterThan(ms: number): void {
    this.othersStoredUntil = Math.min(this.othersStoredUntil, ms);
  }

  /**
   * Whether a try of `slots`, the earliest of which can have been made at `earliestTry`, may have
   * stored rows: one of them is unsettled here, or a try unknown to memory (another process's; one
   * that stored nothing leaves nothing to find; or one memory dropped) can have come after it.
   */
  mayBeStored(slots: readonly string[], earliestTry: number): boolean {
    return (
      slots.some((slot) => this.unsettled.has(slot)) ||
      notAfter(earliestTry, this.othersStoredUntil) ||
      notAfter(earliestTry, this.newestForgottenTry)
    );
  }

  /** `slots` are being tried at `at`: unsettled until accepted. Insertion order is age order. */
  tried(slots: readonly string[], at: number): void {
    for (const slot of slots) {
      this.unsettled.delete(slot);
      this.unsettled.set(slot, at);
    }
    while (this.unsettled.size > this.entries) {
      const [oldest, when] = this.unsettled.entries().next().value as [string, number];
      this.newestForgottenTry = Math.max(this.newestForgottenTry, when);
      this.unsettled.delete(oldest);
    }
  }

  settled(slots: readonly string[]): void {
    for (const slot of slots) this.unsettled.delete(slot);
  }
}

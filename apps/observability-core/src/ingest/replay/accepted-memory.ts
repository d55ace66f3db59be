import type { Remembered } from './accepted-requests';

/** Where a request key of an ingest key is remembered. */
export const slotOf = (keyId: string, requestKey: string) => `${keyId}\u0000${requestKey}`;

/**
 * The accepted requests this process knows, at most `entries`, oldest forgotten first (insertion
 * order is age order), and since when it knows every one.
 */
export class AcceptedMemory {
  private readonly memory = new Map<string, Remembered>();
  /** When the newest entry memory had to drop was accepted: before it, memory is incomplete. */
  private newestForgotten = 0;

  /** `completeSince`: memory knows every request accepted after this (a sole writer's start). */
  constructor(
    private readonly entries: number,
    private completeSince: number | undefined,
  ) {}

  get(slot: string, acceptedAfter: number): Remembered | undefined {
    const hit = this.memory.get(slot);
    return hit && hit.at > acceptedAfter ? hit : undefined;
  }

  remember(slot: string, value: Remembered): void {
    this.memory.delete(slot);
    this.memory.set(slot, value);
    this.trim();
  }

  /** Memory has dropped nothing accepted after `ms`. */
  completeAfter(ms: number): boolean {
    return this.completeSince !== undefined && ms > this.completeSince && ms > this.newestForgotten;
  }

  /**
   * What a previous process accepted after `since` (newest first; `full`: the answer may have left
   * older ones out), taken in before what this process took meanwhile (newer than any of them):
   * memory's order stays the order of age, which is the order it forgets in.
   */
  load(accepted: readonly [string, Remembered][], full: boolean, since: number): void {
    const meanwhile = [...this.memory];
    this.memory.clear();
    for (let i = accepted.length - 1; i >= 0; i--) {
      const [slot, value] = accepted[i]!;
      this.memory.delete(slot);
      this.memory.set(slot, value);
    }
    for (const [slot, value] of meanwhile) {
      this.memory.delete(slot);
      this.memory.set(slot, value);
    }
    // A full answer may have left older ones out: memory is complete only after the oldest here.
    if (full) this.newestForgotten = Math.max(this.newestForgotten, accepted.at(-1)![1].at);
    this.trim();
    this.completeSince = since;
  }

  private trim(): void {
    while (this.memory.size > this.entries) {
      const oldest = this.memory.keys().next().value as string;
      this.newestForgotten = Math.max(this.newestForgotten, this.memory.get(oldest)?.at ?? 0);
      this.memory.delete(oldest);
    }
  }
}

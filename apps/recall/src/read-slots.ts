import { RateLimitedError } from '@svc/errors';
import type { BoundGauge } from '@svc/metrics';
import { ReadAbandonedError, timeBudgetError } from './read-budget';

// The read slots of log.file_entries (docs/recall.md, "Bounds of one call"). A read holds a slot
// while it decrypts and inflates; the service has `total` of them, one project may hold at most
// `perProject` and one org (all its projects, named by X-Svc-Actor's org_id) at most `perOrg`,
// both fewer than the total: a tenant that keeps its share busy (a file of blank lines read over
// and over) leaves the other slots to other tenants, whose reads of small files then start at once
// instead of queueing behind it. Waiters are served in arrival order, skipping those whose project
// or org already holds its share, so a saturated tenant never blocks the queue. A caller without
// an org (stdio) counts as an org of its own project.

export interface SlotLimits {
  /** Reads at once in the service. */
  total: number;
  /** Reads at once of one project (below `total`). */
  perProject: number;
  /** Reads at once of one org, all its projects together (below `total`). */
  perOrg: number;
  /** Reads of one project waiting for a slot; one more is refused (429). */
  waitingPerProject: number;
  /** Reads of one org waiting for a slot; one more is refused (429). */
  waitingPerOrg: number;
  /** Reads waiting in the service; one more is refused (429). */
  waitingTotal: number;
}

/** Held slots and waiting reads, for a check after faults that both go back to 0. */
export interface SlotGauges {
  held: BoundGauge;
  waiting: BoundGauge;
}

export interface SlotRequest {
  projectId: string;
  /** The caller's org; null or absent: the project counts as its own org. */
  orgId?: string | null;
  /** How long the read may wait for its slot (what is left of its call's time). */
  waitMs: number;
  /** The call's whole time, named in the time budget error. */
  limitMs: number;
  /** The caller went away: stop waiting. */
  signal?: AbortSignal;
}

interface Waiter {
  projectId: string;
  org: string;
  grant: () => void;
}

const busyError = (message: string) => new RateLimitedError(message, 1);

export class ReadSlots {
  #held = 0;
  readonly #heldBy = new Map<string, number>();
  readonly #heldByOrg = new Map<string, number>();
  readonly #waiters: Waiter[] = [];
  readonly #waitingBy = new Map<string, number>();
  readonly #waitingByOrg = new Map<string, number>();

  constructor(
    private readonly limits: () => SlotLimits,
    private readonly gauges?: SlotGauges,
  ) {}

  get busy(): number {
    return this.#held;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  heldBy(projectId: string): number {
    return this.#heldBy.get(projectId) ?? 0;
  }

  /**
   * Resolves with the release of a slot (call it exactly once, whatever happens). Rejects with the
   * time budget error when no slot came within `waitMs`, ReadAbandonedError when the caller went
   * away, and RateLimitedError (429) when too many reads of the project, or of the service, wait.
   */
  async acquire(request: SlotRequest): Promise<() => void> {
    const { projectId, signal } = request;
    const org = request.orgId ?? `project:${projectId}`;
    if (signal?.aborted) throw new ReadAbandonedError();
    if (this.#mayStart(projectId, org)) {
      this.#take(projectId, org);
      return this.#releaser(projectId, org);
    }
    if (request.waitMs <= 0) throw timeBudgetError(request.limitMs);
    const limits = this.limits();
    const queued = this.#waitingBy.get(projectId) ?? 0;
    if (queued >= limits.waitingPerProject) {
      throw busyError(
        `Too many reads of this project's files at once (${this.heldBy(projectId)} reading, ${queued} waiting); retry in a moment.`,
      );
    }
    const orgQueued = this.#waitingByOrg.get(org) ?? 0;
    if (orgQueued >= limits.waitingPerOrg) {
      throw busyError(
        `Too many reads of this organization's files at once (${orgQueued} waiting); retry in a moment.`,
      );
    }
    if (this.#waiters.length >= limits.waitingTotal)
      throw busyError('The recall service is reading too many files at once; retry in a moment.');
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = (err: Error) => {
        if (!this.#unqueue(waiter)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#report();
        reject(err);
      };
      const onAbort = () => leave(new ReadAbandonedError());
      const waiter: Waiter = {
        projectId,
        org,
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      timer = setTimeout(() => leave(timeBudgetError(request.limitMs)), request.waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#waitingBy.set(projectId, queued + 1);
      this.#waitingByOrg.set(org, orgQueued + 1);
      this.#report();
    });
    return this.#releaser(projectId, org);
  }

  #mayStart(projectId: string, org: string): boolean {
    const limits = this.limits();
    return (
      this.#held < limits.total &&
      this.heldBy(projectId) < limits.perProject &&
      (this.#heldByOrg.get(org) ?? 0) < limits.perOrg
    );
  }

  #take(projectId: string, org: string): void {
    this.#held += 1;
    this.#heldBy.set(projectId, this.heldBy(projectId) + 1);
    this.#heldByOrg.set(org, (this.#heldByOrg.get(org) ?? 0) + 1);
    this.#report();
  }

  /** Takes a waiter out of the queue; false when it was not in it (granted or gone already). */
  #unqueue(waiter: Waiter): boolean {
    const at = this.#waiters.indexOf(waiter);
    if (at === -1) return false;
    this.#waiters.splice(at, 1);
    decrement(this.#waitingBy, waiter.projectId);
    decrement(this.#waitingByOrg, waiter.org);
    return true;
  }

  #releaser(projectId: string, org: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= 1;
      decrement(this.#heldBy, projectId);
      decrement(this.#heldByOrg, org);
      this.#grantWaiting();
      this.#report();
    };
  }

  /** Hands free slots to the oldest waiters whose project is below its share. */
  #grantWaiting(): void {
    for (let at = 0; at < this.#waiters.length && this.#held < this.limits().total; ) {
      const waiter = this.#waiters[at]!;
      if (!this.#mayStart(waiter.projectId, waiter.org)) {
        at++;
        continue;
      }
      this.#unqueue(waiter);
      this.#take(waiter.projectId, waiter.org);
      waiter.grant();
    }
  }

  #report(): void {
    this.gauges?.held.set(this.#held);
    this.gauges?.waiting.set(this.#waiters.length);
  }
}

/** One less of `key`; the entry goes at 0 (the maps stay as small as the load). */
function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}

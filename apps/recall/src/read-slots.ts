import type { BoundGauge } from '@svc/metrics';
import { RateLimitedError } from '@svc/tool-kit';
import { ReadAbandonedError, timeBudgetError } from './read-budget';

// The read slots of log.file_entries (docs/recall.md, "Bounds of one call"). A read holds a slot
// while it decrypts and inflates; the service has `total` of them, and one project may hold at
// most `perProject`, fewer than the total: a project that keeps its share busy (a file of blank
// lines read over and over) leaves the other slots to other projects, whose reads of small files
// then start at once instead of queueing behind it. Waiters are served in arrival order, skipping
// those whose project already holds its share, so a saturated project never blocks the queue.
// The tool call names its project, not its org (X-Svc-Actor carries token, user and transport),
// so the share is per project.

export interface SlotLimits {
  /** Reads at once in the service. */
  total: number;
  /** Reads at once of one project (below `total`). */
  perProject: number;
  /** Reads of one project waiting for a slot; one more is refused (429). */
  waitingPerProject: number;
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
  /** How long the read may wait for its slot (what is left of its call's time). */
  waitMs: number;
  /** The call's whole time, named in the time budget error. */
  limitMs: number;
  /** The caller went away: stop waiting. */
  signal?: AbortSignal;
}

interface Waiter {
  projectId: string;
  grant: () => void;
}

const busyError = (message: string) => new RateLimitedError(message, 1);

export class ReadSlots {
  #held = 0;
  readonly #heldBy = new Map<string, number>();
  readonly #waiters: Waiter[] = [];
  readonly #waitingBy = new Map<string, number>();

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
    if (signal?.aborted) throw new ReadAbandonedError();
    if (this.#mayStart(projectId)) {
      this.#take(projectId);
      return this.#releaser(projectId);
    }
    if (request.waitMs <= 0) throw timeBudgetError(request.limitMs);
    const limits = this.limits();
    const queued = this.#waitingBy.get(projectId) ?? 0;
    if (queued >= limits.waitingPerProject) {
      throw busyError(
        `Too many reads of this project's files at once (${this.heldBy(projectId)} reading, ${queued} waiting); retry in a moment.`,
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
      this.#report();
    });
    return this.#releaser(projectId);
  }

  #mayStart(projectId: string): boolean {
    const limits = this.limits();
    return this.#held < limits.total && this.heldBy(projectId) < limits.perProject;
  }

  #take(projectId: string): void {
    this.#held += 1;
    this.#heldBy.set(projectId, this.heldBy(projectId) + 1);
    this.#report();
  }

  /** Takes a waiter out of the queue; false when it was not in it (granted or gone already). */
  #unqueue(waiter: Waiter): boolean {
    const at = this.#waiters.indexOf(waiter);
    if (at === -1) return false;
    this.#waiters.splice(at, 1);
    const left = (this.#waitingBy.get(waiter.projectId) ?? 1) - 1;
    if (left === 0) this.#waitingBy.delete(waiter.projectId);
    else this.#waitingBy.set(waiter.projectId, left);
    return true;
  }

  #releaser(projectId: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= 1;
      const left = this.heldBy(projectId) - 1;
      if (left === 0) this.#heldBy.delete(projectId);
      else this.#heldBy.set(projectId, left);
      this.#grantWaiting();
      this.#report();
    };
  }

  /** Hands free slots to the oldest waiters whose project is below its share. */
  #grantWaiting(): void {
    for (let at = 0; at < this.#waiters.length && this.#held < this.limits().total; ) {
      const waiter = this.#waiters[at]!;
      if (!this.#mayStart(waiter.projectId)) {
        at++;
        continue;
      }
      this.#unqueue(waiter);
      this.#take(waiter.projectId);
      waiter.grant();
    }
  }

  #report(): void {
    this.gauges?.held.set(this.#held);
    this.gauges?.waiting.set(this.#waiters.length);
  }
}

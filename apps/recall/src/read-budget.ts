import { setImmediate as nextTurn } from 'node:timers/promises';
import { QueryBudgetError } from '@svc/tool-kit';

// What one read of a device file may cost (docs/recall.md, "Reading bounds"). A file is read a
// chunk at a time on the event loop: between two chunks the loop serves everything else, so the
// work of one step is bounded by the chunk and line sizes, and the work of one call by these
// limits. They are fixed numbers, not settings: the gateway's timeout and answer budget are sized
// around them.

export interface ReadLimits {
  /** Wall time of one log.file_entries call, its wait for a read slot included (the gateway waits 15 s). */
  callMs: number;
  /** Entries (non-blank lines after after_line) one call parses; then it answers where it stopped. */
  parsedLines: number;
  /** Bytes of those lines. */
  parsedBytes: number;
  /** JSON bytes of the entries one answer carries, whatever `limit` says. */
  pageBytes: number;
  /** log.file_entries calls reading at once; the others wait for a slot, within callMs. */
  concurrentReads: number;
}

export const DEFAULT_READ_LIMITS: Readonly<ReadLimits> = {
  callMs: 10_000,
  parsedLines: 100_000,
  parsedBytes: 8 * 1024 * 1024,
  pageBytes: 1024 * 1024,
  concurrentReads: 4,
};

/** The caller went away: reading stops, nobody reads the answer. */
export class ReadAbandonedError extends Error {
  constructor() {
    super('the caller went away');
  }
}

/** Paces a read: each chunk ends with a turn of the event loop and a look at the call's budget. */
export interface ReadPacer {
  /** Yields to the event loop; throws QueryBudgetError past the deadline, ReadAbandonedError once aborted. */
  turn(): Promise<void>;
  /** The same checks without yielding (between awaits that already yield). */
  check(): void;
}

export interface PacerOptions {
  /** Time the whole call may take from `startedAt`; undefined: no deadline (a download). */
  limitMs?: number;
  startedAt?: number;
  signal?: AbortSignal;
  now?: () => number;
  /** How to yield (tests count the work done between turns). */
  yieldToLoop?: () => Promise<unknown>;
}

export function timeBudgetError(limitMs: number): QueryBudgetError {
  return new QueryBudgetError(
    `Reading the file needed more than the ${Math.round(limitMs / 1000)} s one call may take (the recall service is busy); retry, or read less at once (a smaller limit, after_line to page).`,
    { details: { budget: 'time', limit_ms: limitMs } },
  );
}

export function createPacer(options: PacerOptions = {}): ReadPacer {
  const now = options.now ?? (() => performance.now());
  const startedAt = options.startedAt ?? now();
  const yieldToLoop = options.yieldToLoop ?? (() => nextTurn());
  const check = () => {
    if (options.signal?.aborted) throw new ReadAbandonedError();
    if (options.limitMs !== undefined && now() - startedAt >= options.limitMs)
      throw timeBudgetError(options.limitMs);
  };
  return {
    check,
    async turn() {
      await yieldToLoop();
      check();
    },
  };
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * At most `size` reads at once, first come first served. A waiter gives up at its deadline with
 * the time budget error, and when its caller goes away.
 */
export class ReadSlots {
  #busy = 0;
  #waiters: Waiter[] = [];

  constructor(readonly size: () => number) {}

  get busy(): number {
    return this.#busy;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Resolves with the release of a slot (call it exactly once). */
  async acquire(options: { waitMs: number; limitMs: number; signal?: AbortSignal }): Promise<() => void> {
    if (this.#busy < this.size() && this.#waiters.length === 0) {
      this.#busy += 1;
      return this.#releaser();
    }
    if (options.waitMs <= 0) throw timeBudgetError(options.limitMs);
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { grant: resolve, timer: undefined };
      const leave = (err: Error) => {
        const at = this.#waiters.indexOf(waiter);
        if (at === -1) return;
        this.#waiters.splice(at, 1);
        clearTimeout(waiter.timer);
        options.signal?.removeEventListener('abort', onAbort);
        reject(err);
      };
      const onAbort = () => leave(new ReadAbandonedError());
      waiter.timer = setTimeout(() => leave(timeBudgetError(options.limitMs)), options.waitMs);
      waiter.grant = () => {
        clearTimeout(waiter.timer);
        options.signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
    return this.#releaser();
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      // The slot passes straight to the next waiter: #busy stays as it is.
      if (next) next.grant();
      else this.#busy -= 1;
    };
  }
}

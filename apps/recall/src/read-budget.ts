import { setImmediate as nextTurn } from 'node:timers/promises';
import { QueryBudgetError } from '@svc/errors';

// What one read of a device file may cost (docs/recall.md, "Bounds of one call"). A file is read a
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
  /** log.file_entries calls reading at once in the service; the others wait for a slot, within callMs. */
  concurrentReads: number;
  /** Of those, the calls of one project (read-slots.ts): one project never takes every slot. */
  concurrentReadsPerProject: number;
  /** Of those, the calls of one org, all its projects together: one org never takes every slot. */
  concurrentReadsPerOrg: number;
  /** Calls of one project waiting for a slot; one more is answered 429. */
  waitingReadsPerProject: number;
  /** Calls of one org waiting for a slot; one more is answered 429. */
  waitingReadsPerOrg: number;
  /** Calls waiting for a slot in the service; one more is answered 429. */
  waitingReads: number;
}

export const DEFAULT_READ_LIMITS: Readonly<ReadLimits> = {
  callMs: 10_000,
  parsedLines: 100_000,
  parsedBytes: 8 * 1024 * 1024,
  pageBytes: 1024 * 1024,
  concurrentReads: 4,
  concurrentReadsPerProject: 2,
  concurrentReadsPerOrg: 3,
  waitingReadsPerProject: 8,
  waitingReadsPerOrg: 16,
  waitingReads: 64,
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

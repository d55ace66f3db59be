import type { ClickHouse } from '@svc/clickhouse';
import type { Logger } from '@svc/tool-kit';
import type { DebugFileStore } from './debug-file-store';
import { completeJob, type PendingJob, pendingJobs } from './jobs';
import { createSymbolicator, type Symbolicator } from './symbolicator';

export interface SymbolicationWorkerOptions {
  ch: ClickHouse;
  files: DebugFileStore;
  logger: Logger;
  /** How often pending requests are looked for; default 1000 ms. */
  pollMs?: number;
  /** Crashes symbolicated at the same time; default 2. */
  concurrency?: number;
  now?: () => number;
  /** Shared with the app's ingest path when given (one cache of parsed files). */
  symbolicator?: Symbolicator;
}

export interface SymbolicationWorker {
  /** Stops polling and waits for the crashes in progress. */
  stop(): Promise<void>;
}

const BATCH = 50;
const RETRY_AFTER_MS = 60_000;

/**
 * Handles crash.symbolicate requests in the background. Requests live in ClickHouse (jobs.ts), so
 * the worker only polls: whatever was accepted before a restart is picked up after it. A request
 * for a crash that no longer exists is completed without a result. A failure (storage down) is
 * logged and the request retried after a minute, not in a tight loop.
 */
export function startSymbolicationWorker(options: SymbolicationWorkerOptions): SymbolicationWorker {
  const pollMs = options.pollMs ?? 1000;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const now = options.now ?? Date.now;
  const ownSymbolicator = !options.symbolicator;
  const symbolicator =
    options.symbolicator ??
    createSymbolicator({ ch: options.ch, files: options.files, logger: options.logger });
  const retryAt = new Map<string, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function handle(job: PendingJob) {
    const key = `${job.project_id}\u0000${job.event_id}`;
    try {
      const found = await symbolicator.symbolicateStored(job.project_id, job.event_id, now());
      if (!found)
        options.logger.warn(
          { project_id: job.project_id, event_id: job.event_id },
          'symbolication: crash not found',
        );
      await completeJob(options.ch, job, now());
      retryAt.delete(key);
    } catch (err) {
      options.logger.error(
        { err, project_id: job.project_id, event_id: job.event_id },
        'symbolication failed',
      );
      retryAt.set(key, Date.now() + RETRY_AFTER_MS);
    }
  }

  async function tick() {
    try {
      const jobs = (await pendingJobs(options.ch, BATCH)).filter(
        (j) => (retryAt.get(`${j.project_id}\u0000${j.event_id}`) ?? 0) <= Date.now(),
      );
      let next = 0;
      const lane = async () => {
        while (!stopped && next < jobs.length) await handle(jobs[next++]!);
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, lane));
    } catch (err) {
      options.logger.error({ err }, 'symbolication worker could not read pending requests');
    }
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(schedule);
    }, pollMs);
    timer.unref();
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      if (ownSymbolicator) symbolicator.close();
    },
  };
}

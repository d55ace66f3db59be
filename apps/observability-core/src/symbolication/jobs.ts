import { randomUUID } from 'node:crypto';
import type { ClickHouse } from '@svc/clickhouse';
import { toChTime } from '../storage/time';

// crash.symbolicate requests, kept in ClickHouse (table symbolication_jobs) so that a request
// accepted before a restart is still done after it. Append-only: a request is a row with done = 0
// and a fresh request_id; handling it appends the same request_id with done = 1. A request made
// while its crash is being processed has a new id and stays pending, so it runs again afterwards.

export interface PendingJob {
  project_id: string;
  event_id: string;
  request_ids: string[];
}

export async function enqueueSymbolication(
  ch: ClickHouse,
  projectId: string,
  eventId: string,
  nowMs: number,
): Promise<void> {
  await ch.insert('symbolication_jobs', [
    {
      project_id: projectId,
      event_id: eventId,
      request_id: randomUUID(),
      requested_at: toChTime(nowMs),
      done: 0,
    },
  ]);
}

/** Crashes with at least one request not yet handled, oldest request first. */
export async function pendingJobs(ch: ClickHouse, limit: number): Promise<PendingJob[]> {
  return ch.query<PendingJob>(
    `SELECT project_id, event_id, groupArray(request_id) AS request_ids
     FROM (
       SELECT project_id, event_id, request_id, min(requested_at) AS requested_at
       FROM symbolication_jobs
       GROUP BY project_id, event_id, request_id
       HAVING max(done) = 0
     )
     GROUP BY project_id, event_id
     ORDER BY min(requested_at) ASC, project_id ASC, event_id ASC
     LIMIT {limit:UInt32}`,
    { limit },
  );
}

export async function completeJob(ch: ClickHouse, job: PendingJob, nowMs: number): Promise<void> {
  await ch.insert(
    'symbolication_jobs',
    job.request_ids.map((request_id) => ({
      project_id: job.project_id,
      event_id: job.event_id,
      request_id,
      requested_at: toChTime(nowMs),
      done: 1,
    })),
  );
}

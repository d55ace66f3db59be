import { sanitizeOptional } from '@svc/tool-kit';
import { isoFromMs } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';

// Counts and "where and when seen" of one id (a user or a session) over every table that
// carries it. Table names, columns and time expressions are constants; the id is bound.

export type Channel = 'logs' | 'crashes' | 'events' | 'feedback' | 'sessions';

const SOURCES: Record<Channel, { from: string; count: string; first: string; last: string }> = {
  logs: { from: 'logs', count: 'count()', first: 'timestamp', last: 'timestamp' },
  // A crash stored twice (a retried upload) is the same row twice under the same sorting key
  // (timestamp, event_id): counting distinct keys equals a FINAL count, without FINAL's merge of
  // every part around the user's granules, most of a quiet user's read.
  crashes: {
    from: 'crashes',
    count: 'uniqExact(timestamp, event_id)',
    first: 'timestamp',
    last: 'timestamp',
  },
  events: { from: 'events', count: 'count()', first: 'timestamp', last: 'timestamp' },
  feedback: { from: 'feedback FINAL', count: 'count()', first: 'timestamp', last: 'timestamp' },
  // A session spans from its start to its end (when reported).
  sessions: {
    from: 'sessions FINAL',
    count: 'count()',
    first: 'started_at',
    last: 'ifNull(ended_at, started_at)',
  },
};

/**
 * Distinct values kept per list (platforms, versions, users). These aggregates are those of the
 * logs projection p_user_summary_fine (storage/migrations.ts version 12): keep them identical, so
 * a user's log totals come from the projection instead of a scan.
 */
const DISTINCT_MAX = 100;
// Asking for the users of a user would not match the projection, and is the user anyway.
const ONE_USER = '[{id:String}]';
const USERS = `groupUniqArrayIf(${DISTINCT_MAX})(user_id, user_id != '')`;

interface SummaryRow {
  n: string;
  first_ms: string;
  last_ms: string;
  platforms: string[];
  versions: string[];
  users: string[];
}

export interface Seen {
  totals: Record<Channel, number>;
  found: boolean;
  first_seen: string | null;
  last_seen: string | null;
  platforms: string[];
  app_versions: string[];
  user_ids: string[];
}

export async function summarize(
  ctx: CoreToolContext,
  key: 'user_id' | 'session_id',
  id: string,
  channels: readonly Channel[],
): Promise<Seen> {
  const rows = await Promise.all(
    channels.map(async (channel) => {
      const s = SOURCES[channel];
      const [row] = await ctx.ch.query<SummaryRow>(
        `SELECT ${s.count} AS n,
           toUnixTimestamp64Milli(min(${s.first})) AS first_ms,
           toUnixTimestamp64Milli(max(${s.last})) AS last_ms,
           groupUniqArrayIf(${DISTINCT_MAX})(platform, platform != '') AS platforms,
           groupUniqArrayIf(${DISTINCT_MAX})(app_version, app_version != '') AS versions,
           ${key === 'user_id' ? ONE_USER : USERS} AS users
         FROM ${s.from}
         WHERE project_id = {project_id:String} AND ${key} = {id:String}`,
        { project_id: ctx.projectId, id },
        { signal: ctx.signal },
      );
      return [channel, row] as const;
    }),
  );
  const totals = { logs: 0, crashes: 0, events: 0, feedback: 0, sessions: 0 };
  let first: number | null = null;
  let last: number | null = null;
  const platforms = new Set<string>();
  const versions = new Set<string>();
  const users = new Set<string>();
  for (const [channel, row] of rows) {
    const n = Number(row?.n ?? 0);
    totals[channel] = n;
    if (!row || n === 0) continue; // min/max of nothing is the epoch, not a sighting
    first = first === null ? Number(row.first_ms) : Math.min(first, Number(row.first_ms));
    last = last === null ? Number(row.last_ms) : Math.max(last, Number(row.last_ms));
    for (const p of row.platforms) platforms.add(p);
    for (const v of row.versions) versions.add(v);
    for (const u of row.users) users.add(u);
  }
  return {
    totals,
    found: Object.values(totals).some((n) => n > 0),
    first_seen: first === null ? null : isoFromMs(first),
    last_seen: last === null ? null : isoFromMs(last),
    platforms: cleanSorted(platforms),
    app_versions: cleanSorted(versions),
    user_ids: cleanSorted(users),
  };
}

function cleanSorted(values: Set<string>): string[] {
  const clean = new Set<string>();
  for (const v of values) {
    const c = sanitizeOptional(v);
    if (c !== null) clean.add(c);
  }
  return [...clean].sort().slice(0, DISTINCT_MAX);
}

import { DAY_MS } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';
import { combine, equals, paramsOf, type SqlFilter, whereOf } from '../sql/filter';
import { dayIndex } from '../sql/window';

// The one query behind analytics.retention and analytics.cohorts (docs/semantics.md). Per user,
// over the events that match the filters and are not later than now: the first event ever gives
// day 0 (its UTC date); the user is in the cohort when that first event is inside the window; the
// distinct UTC dates of the user's events give the day offsets on which the user was active.
// Counts per (day 0, offset) are exact (each user is counted once per pair); the tools add them up.

export interface RetentionFilters {
  platform?: string;
  app_version?: string;
  utm_source?: string;
  utm_medium?: string;
  utm_campaign?: string;
}

/** Users of one day 0 (days since 1970-01-01 UTC): the cohort size and users active per offset. */
export interface Day0Counts {
  day0: number;
  size: number;
  /** retained[d] for d in 0..max_day. */
  retained: number[];
}

export interface CohortCounts {
  fromMs: number;
  toMs: number;
  /** The UTC date of now, in days since 1970-01-01. */
  today: number;
  byDay0: Day0Counts[];
}

/** The filter parameters analytics.funnel, retention and cohorts share, over the events' columns. */
export function eventFilter(f: RetentionFilters): SqlFilter {
  return combine(
    equals('platform', f.platform),
    equals('app_version', f.app_version),
    equals('utm_source', f.utm_source),
    equals('utm_medium', f.utm_medium),
    equals('utm_campaign', f.utm_campaign),
  );
}

// Users are grouped by user_key, a 64-bit hash of their id stored at insert (migration 13; integer
// keys are several times cheaper than strings; a collision among even 10^8 users has a probability
// below 10^-3).

/**
 * Largest window for the bitmask query: bit 0 and one bit per UTC date from the window's first
 * date to today (days + 1 dates) must fit in a UInt64.
 */
export const BITMASK_MAX_DAYS = 62;

/**
 * One UInt64 per user, OR-ed over their events: bit 0 when an event is earlier than the window
 * (the user's first event is then outside it, so the user is dropped), else bit 1 + the event's
 * UTC date counted from the window's first date. The lowest set bit is day 0. A single cheap
 * aggregate state per user is about twice as fast as min(timestamp) plus an array of dates.
 */
function bitmaskSql(where: string): string {
  return `SELECT day0, arrayJoin(offsets) AS offset, count() AS users
     FROM (
       SELECT
         bitCount(bitAnd(bits, bitNot(bits) + 1) - 1) AS first_bit,
         toInt64(first_bit) - 1 + intDiv({from_day_ms:Int64}, ${DAY_MS}) AS day0,
         -- Dates past bit 63 are after today: bounding the offsets keeps bitTest inside the mask.
         arrayFilter(o -> bitTest(bits, first_bit + o),
           range(toUInt64(least({max_day:Int64}, 63 - first_bit) + 1))) AS offsets
       FROM (
         SELECT groupBitOr(bitShiftLeft(toUInt64(1),
             if(ms < {from_ms:Int64}, 0, intDiv(ms - {from_day_ms:Int64}, ${DAY_MS}) + 1))) AS bits
         FROM (
           SELECT user_key, toUnixTimestamp64Milli(timestamp) AS ms
           FROM events
           WHERE ${where} AND timestamp <= fromUnixTimestamp64Milli({to_ms:Int64}, 'UTC')
         )
         GROUP BY user_key
         HAVING bitAnd(bits, 1) = 0
       )
     )
     GROUP BY day0, offset`;
}

/** Any window length: the first event and the array of distinct UTC dates per user. */
function arraySql(where: string): string {
  return `SELECT day0, arrayJoin(offsets) AS offset, count() AS users
     FROM (
       SELECT
         toUInt32(toDate(min(timestamp), 'UTC')) AS day0,
         arrayFilter(
           o -> o <= {max_day:Int64},
           arrayMap(
             d -> toInt64(d) - toInt64(day0),
             groupUniqArrayIf(toUInt32(toDate(timestamp, 'UTC')),
               timestamp >= fromUnixTimestamp64Milli({from_day_ms:Int64}, 'UTC')))) AS offsets
       FROM events
       WHERE ${where} AND timestamp <= fromUnixTimestamp64Milli({to_ms:Int64}, 'UTC')
       GROUP BY user_key
       HAVING min(timestamp) >= fromUnixTimestamp64Milli({from_ms:Int64}, 'UTC')
     )
     GROUP BY day0, offset`;
}

export async function queryCohortCounts(
  ctx: CoreToolContext,
  input: { days: number; max_day: number } & RetentionFilters,
): Promise<CohortCounts> {
  const toMs = ctx.now;
  const fromMs = toMs - input.days * DAY_MS;
  const filter = eventFilter(input);
  const params = paramsOf(filter, ctx.projectId, {
    from_ms: fromMs,
    to_ms: toMs,
    // Activity before the window's first UTC date cannot be on or after any cohort's day 0.
    from_day_ms: dayIndex(fromMs) * DAY_MS,
    max_day: input.max_day,
  });
  const sql = input.days <= BITMASK_MAX_DAYS ? bitmaskSql(whereOf(filter)) : arraySql(whereOf(filter));
  const rows = await ctx.ch.query<{ day0: number; offset: number; users: string }>(sql, params, {
    signal: ctx.signal,
  });
  const byDay0 = new Map<number, Day0Counts>();
  for (const r of rows) {
    const day0 = Number(r.day0);
    let g = byDay0.get(day0);
    if (!g) {
      g = { day0, size: 0, retained: new Array<number>(input.max_day + 1).fill(0) };
      byDay0.set(day0, g);
    }
    const offset = Number(r.offset);
    g.retained[offset] = Number(r.users);
    // Day 0 always holds the first event: its users are the whole cohort.
    if (offset === 0) g.size = Number(r.users);
  }
  return {
    fromMs,
    toMs,
    today: dayIndex(toMs),
    byDay0: [...byDay0.values()].sort((a, b) => a.day0 - b.day0),
  };
}

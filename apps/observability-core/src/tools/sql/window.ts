import { DAY_MS, isoFromMs } from '../../storage/time';
import type { SqlFilter } from './filter';

// Time windows (docs/semantics.md): `days` means [now - days*24h, now], both ends included; daily
// series are UTC days, zero-filled.

/** The window's ends as SQL, from the bound Int64 epoch milliseconds from_ms and to_ms. */
export const WINDOW_FROM = "fromUnixTimestamp64Milli({from_ms:Int64}, 'UTC')";
export const WINDOW_TO = "fromUnixTimestamp64Milli({to_ms:Int64}, 'UTC')";

/** A time column (a constant name) in [from_ms, to_ms]. */
export function columnInWindow(column: string): string[] {
  return [`${column} >= ${WINDOW_FROM}`, `${column} <= ${WINDOW_TO}`];
}

/** `timestamp` in [from_ms, to_ms]. */
export const TIMESTAMP_IN_WINDOW: readonly string[] = columnInWindow('timestamp');

export interface TimeWindow {
  fromMs: number;
  toMs: number;
  /** `timestamp` inside the window, with the bound parameters from_ms / to_ms. */
  filter: SqlFilter;
  /** As results state it. */
  iso: { from: string; to: string };
}

/** [toMs - lengthMs, toMs] over the column `timestamp`. */
export function windowEnding(toMs: number, lengthMs: number): TimeWindow {
  const fromMs = toMs - lengthMs;
  return {
    fromMs,
    toMs,
    filter: { where: [...TIMESTAMP_IN_WINDOW], params: { from_ms: fromMs, to_ms: toMs } },
    iso: { from: isoFromMs(fromMs), to: isoFromMs(toMs) },
  };
}

export const lastDays = (now: number, days: number): TimeWindow => windowEnding(now, days * DAY_MS);

/** Days since the epoch of a time (its UTC date as a number). */
export const dayIndex = (ms: number): number => Math.floor(ms / DAY_MS);

export const isoDate = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Every UTC date (YYYY-MM-DD) the window touches, oldest first. */
export function utcDates(fromMs: number, toMs: number): string[] {
  const dates: string[] = [];
  for (let day = dayIndex(fromMs); day <= dayIndex(toMs); day++) dates.push(isoDate(day));
  return dates;
}

/** One entry per UTC date of the window with the counts found, 0 for the days without. */
export function zeroFilledDays(
  fromMs: number,
  toMs: number,
  counts: ReadonlyMap<string, number>,
): { date: string; count: number }[] {
  return utcDates(fromMs, toMs).map((date) => ({ date, count: counts.get(date) ?? 0 }));
}

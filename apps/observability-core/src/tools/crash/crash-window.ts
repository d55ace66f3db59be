import { isoFromMs } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';

// Windowed crash queries: `[now - days*24h, now]` (DESIGN.md section 7), both ends included.

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface CrashWindow {
  fromMs: number;
  toMs: number;
  /** SQL over `timestamp` with the bound parameters from_ms / to_ms. */
  where: string;
  params: { from_ms: number; to_ms: number };
  iso: { from: string; to: string };
}

export function lastDays(ctx: CoreToolContext, days: number): CrashWindow {
  const fromMs = ctx.now - days * DAY_MS;
  const toMs = ctx.now;
  return {
    fromMs,
    toMs,
    where: `timestamp >= fromUnixTimestamp64Milli({from_ms:Int64}, 'UTC')
      AND timestamp <= fromUnixTimestamp64Milli({to_ms:Int64}, 'UTC')`,
    params: { from_ms: fromMs, to_ms: toMs },
    iso: { from: isoFromMs(fromMs), to: isoFromMs(toMs) },
  };
}

/** Every UTC date (YYYY-MM-DD) the window touches, oldest first. */
export function utcDates(fromMs: number, toMs: number): string[] {
  const dates: string[] = [];
  for (let day = Math.floor(fromMs / DAY_MS); day <= Math.floor(toMs / DAY_MS); day++) {
    dates.push(new Date(day * DAY_MS).toISOString().slice(0, 10));
  }
  return dates;
}

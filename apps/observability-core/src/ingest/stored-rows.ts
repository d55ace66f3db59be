import { createHash } from 'node:crypto';
import type { ClickHouse } from '@svc/clickhouse';
import type { RecordType } from './schemas';

// What a retried request finds of its own rows already stored (docs/ingest.md, "Retries and
// replays"). Every ingest row carries `ingest_token`, a hash of its request's deduplication token
// for the table, written in the same insert as the row itself: a stored row is its own evidence,
// whatever became of its request afterwards (the process killed before the request was remembered
// as accepted) and however it went in (merged with other requests' rows into one insert, under a
// token the engine knows and the request does not). A table stores an insert in one part per
// partition, each whole or not at all, and a request's rows of a table always go in one insert:
// per table and partition, a request's rows are all there or none are.

type Row = Record<string, unknown>;

/** The column of every ingest table that names the request its row came with (migration 21). */
export const ROW_TOKEN_COLUMN = 'ingest_token';

/**
 * How a request's rows of each table are found through the table's primary key, which leads with
 * project_id: by the time column the table is partitioned and sorted by, within the request's own
 * time range; or, for the unpartitioned tables sorted by an id, by the request's ids.
 */
export const LOCATORS: Record<RecordType, { time: string } | { key: string }> = {
  logs: { time: 'timestamp' },
  crashes: { time: 'timestamp' },
  spans: { time: 'start_time' },
  metrics: { time: 'timestamp' },
  events: { time: 'timestamp' },
  feedback: { time: 'timestamp' },
  sessions: { key: 'session_id' },
  experiments: { key: 'experiment_key' },
};

/**
 * A request's row token for a table: 53 bits of the SHA-256 of its deduplication token (a
 * JavaScript number, so rows stay plain JSON). Never 0, the value of rows stored before the column.
 */
export function rowTokenOf(token: string): number {
  const hash = createHash('sha256').update(token).digest();
  return hash.readUIntBE(0, 6) * 32 + (hash[6]! >> 3) || 1;
}

/**
 * A lookup looks near the request's own times only: rows less than a minute apart share a time
 * range, and a table's part of the lookup has at most 16 (the largest gaps split them), so a batch
 * of a few moments of a day and of last week reads neither the days between nor the rest of them.
 */
const RANGE_GAP_MS = 60_000;
const MAX_RANGES = 16;

/** The ranges [lo, hi] covering `times`, split at the largest gaps longer than RANGE_GAP_MS. */
export function timeRanges(times: readonly number[]): [number, number][] {
  const sorted = Float64Array.from(times).sort();
  const gaps: number[] = [];
  for (let i = 1; i < sorted.length; i++) if (sorted[i]! - sorted[i - 1]! > RANGE_GAP_MS) gaps.push(i);
  const splits = gaps
    .sort((a, b) => sorted[b]! - sorted[b - 1]! - (sorted[a]! - sorted[a - 1]!) || a - b)
    .slice(0, MAX_RANGES - 1)
    .sort((a, b) => a - b);
  const ranges: [number, number][] = [];
  let start = 0;
  for (const split of [...splits, sorted.length]) {
    ranges.push([sorted[start]!, sorted[split - 1]!]);
    start = split;
  }
  return ranges;
}

/** A request's rows for one table, each carrying the request's row token. */
export interface PendingRows {
  table: RecordType;
  rowToken: number;
  rows: readonly Row[];
}

/** Per table, the time ranges of the partitions holding the request's rows ([0, 0]: the table's one). */
export type StoredRanges = Map<RecordType, { lo: number; hi: number }[]>;

/**
 * Where the request's rows already are: one query over every table it writes to, each part of it
 * limited to the project, the request's time ranges (or ids) and its row token.
 */
export async function findStored(
  ch: ClickHouse,
  projectId: string,
  pending: readonly PendingRows[],
): Promise<StoredRanges> {
  const params: Record<string, unknown> = { project: projectId };
  const selects = pending.map(({ table, rowToken, rows }, i) => {
    const locator = LOCATORS[table];
    params[`token${i}`] = rowToken;
    const mine = `project_id = {project:String} AND ${ROW_TOKEN_COLUMN} = {token${i}:UInt64}`;
    if ('key' in locator) {
      params[`keys${i}`] = [...new Set(rows.map((row) => String(row[locator.key])))];
      return `SELECT '${table}' AS tbl, toInt64(0) AS lo, toInt64(0) AS hi FROM ${table}
        WHERE ${mine} AND ${locator.key} IN {keys${i}:Array(String)} LIMIT 1`;
    }
    const within = timeRanges(rows.map((row) => Number(row[locator.time]))).map(([lo, hi], j) => {
      params[`lo${i}_${j}`] = lo;
      params[`hi${i}_${j}`] = hi;
      return `${locator.time} BETWEEN fromUnixTimestamp64Milli({lo${i}_${j}:Int64}, 'UTC')
        AND fromUnixTimestamp64Milli({hi${i}_${j}:Int64}, 'UTC')`;
    });
    return `SELECT '${table}' AS tbl, toUnixTimestamp64Milli(min(${locator.time})) AS lo,
        toUnixTimestamp64Milli(max(${locator.time})) AS hi FROM ${table}
      WHERE ${mine} AND (${within.join(' OR ')})
      GROUP BY _partition_id`;
  });
  // The aggregate projections cannot answer a filter on the row token: not weighing them is a
  // fifth of the lookup's cost.
  const found = await ch.query<{ tbl: RecordType; lo: string; hi: string }>(
    `SELECT tbl, lo, hi FROM (${selects.join(' UNION ALL ')}) SETTINGS optimize_use_projections = 0`,
    params,
  );
  const stored: StoredRanges = new Map();
  for (const { tbl, lo, hi } of found) {
    const ranges = stored.get(tbl) ?? [];
    ranges.push({ lo: Number(lo), hi: Number(hi) });
    stored.set(tbl, ranges);
  }
  return stored;
}

/** The rows of `pending` not in `stored`: those of the partitions where none of its rows are. */
export function notYetStored({ table, rows }: PendingRows, stored: StoredRanges): readonly Row[] {
  const ranges = stored.get(table);
  if (!ranges) return rows;
  const locator = LOCATORS[table];
  if ('key' in locator) return [];
  return rows.filter((row) => {
    const time = Number(row[locator.time]);
    return !ranges.some((range) => time >= range.lo && time <= range.hi);
  });
}

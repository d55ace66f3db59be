import { createHash } from 'node:crypto';
import type { ClickHouse } from '@svc/clickhouse';
import type { RecordType } from '../schemas';

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

/** One request's lookup: its project and its rows per table. */
export interface Lookup {
  projectId: string;
  pending: readonly PendingRows[];
}

/**
 * The ids a lookup of an unpartitioned table names: a few of the request's (its rows there are
 * all stored or none), so the query stays small whatever the batch. Several, not one: a later
 * report of a session or experiment folds the row it replaces away.
 */
const IDS_PER_LOOKUP = 16;

/** What a lookup adds to a query: one per time range or id it names (at most 128 a request). */
export function weightOf(lookup: Lookup): number {
  let n = 0;
  for (const { table, rows } of lookup.pending) {
    const locator = LOCATORS[table];
    n +=
      'key' in locator
        ? Math.min(new Set(rows.map((row) => row[locator.key])).size, IDS_PER_LOOKUP)
        : timeRanges(rows.map((row) => Number(row[locator.time]))).length;
  }
  return n;
}

/**
 * Where each lookup's rows already are: one query for all of them, one SELECT per table, each
 * condition limited to a project, a row token and the request's time ranges (or ids).
 */
export async function findStored(ch: ClickHouse, lookups: readonly Lookup[]): Promise<StoredRanges[]> {
  const params: Record<string, unknown> = {};
  const conditions = new Map<RecordType, string[]>();
  lookups.forEach(({ projectId, pending }, i) => {
    params[`p${i}`] = projectId;
    for (const { table, rowToken, rows } of pending) {
      const name = `${i}_${table}`;
      params[`t${name}`] = rowToken;
      const locator = LOCATORS[table];
      let where: string;
      if ('key' in locator) {
        params[`k${name}`] = [...new Set(rows.map((row) => String(row[locator.key])))].slice(
          0,
          IDS_PER_LOOKUP,
        );
        where = `${locator.key} IN {k${name}:Array(String)}`;
      } else {
        const ranges = timeRanges(rows.map((row) => Number(row[locator.time]))).map(([lo, hi], j) => {
          params[`lo${name}_${j}`] = lo;
          params[`hi${name}_${j}`] = hi;
          return `${locator.time} BETWEEN fromUnixTimestamp64Milli({lo${name}_${j}:Int64}, 'UTC')
            AND fromUnixTimestamp64Milli({hi${name}_${j}:Int64}, 'UTC')`;
        });
        where = `(${ranges.join(' OR ')})`;
      }
      const list = conditions.get(table) ?? [];
      list.push(`project_id = {p${i}:String} AND ${ROW_TOKEN_COLUMN} = {t${name}:UInt64} AND ${where}`);
      conditions.set(table, list);
    }
  });
  const selects = [...conditions].map(([table, list]) => {
    const locator = LOCATORS[table];
    const [lo, hi] =
      'key' in locator
        ? ['toInt64(0)', 'toInt64(0)']
        : [`toUnixTimestamp64Milli(min(${locator.time}))`, `toUnixTimestamp64Milli(max(${locator.time}))`];
    return `SELECT '${table}' AS tbl, project_id AS project, ${ROW_TOKEN_COLUMN} AS token, ${lo} AS lo, ${hi} AS hi
      FROM ${table} WHERE (${list.join(') OR (')})
      GROUP BY project_id, ${ROW_TOKEN_COLUMN}, _partition_id`;
  });
  // The aggregate projections cannot answer a filter on the row token: not weighing them is a
  // fifth of the lookup's cost.
  const found = await ch.query<{ tbl: RecordType; project: string; token: string; lo: string; hi: string }>(
    `SELECT tbl, project, token, lo, hi FROM (${selects.join(' UNION ALL ')})
     SETTINGS optimize_use_projections = 0`,
    params,
  );
  const where = (project: string, token: string | number, table: string) =>
    `${project}\u0000${token}\u0000${table}`;
  const ranges = new Map<string, { lo: number; hi: number }[]>();
  for (const row of found) {
    const at = where(row.project, row.token, row.tbl);
    const list = ranges.get(at) ?? [];
    list.push({ lo: Number(row.lo), hi: Number(row.hi) });
    ranges.set(at, list);
  }
  return lookups.map(({ projectId, pending }) => {
    const stored: StoredRanges = new Map();
    for (const { table, rowToken } of pending) {
      const list = ranges.get(where(projectId, rowToken, table));
      if (list) stored.set(table, list);
    }
    return stored;
  });
}

/** Time ranges and ids one lookup query names at most (under 100 KB of SQL): more requests wait. */
const WEIGHT_PER_QUERY = 256;

/**
 * `findStored` for one request at a time, as the writer asks: lookups that come while one runs
 * wait for it and then go in one query together (up to WEIGHT_PER_QUERY time ranges and ids), as the
 * inserts do (insert-coalescer.ts). A lone lookup runs at once.
 */
export function createStoredRowsFinder(ch: ClickHouse): (lookup: Lookup) => Promise<StoredRanges> {
  const queue: { lookup: Lookup; done: (err: unknown, stored?: StoredRanges) => void }[] = [];
  let running = false;
  async function drain(): Promise<void> {
    running = true;
    while (queue.length > 0) {
      let weight = weightOf(queue[0]!.lookup);
      let take = 1;
      while (take < queue.length && weight + weightOf(queue[take]!.lookup) <= WEIGHT_PER_QUERY)
        weight += weightOf(queue[take++]!.lookup);
      const wave = queue.splice(0, take);
      try {
        const answers = await findStored(
          ch,
          wave.map((w) => w.lookup),
        );
        for (const [i, w] of wave.entries()) w.done(undefined, answers[i]);
      } catch (err) {
        for (const w of wave) w.done(err);
      }
    }
    running = false;
  }
  return (lookup) =>
    new Promise((resolve, reject) => {
      queue.push({ lookup, done: (err, stored) => (err === undefined ? resolve(stored!) : reject(err)) });
      if (!running) void drain();
    });
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

import type { ClickHouse } from '@svc/clickhouse';
import { toChTime } from '../../storage/time';
import { RECORD_TYPES } from '../schemas';

// The table `ingest_requests` (one day): the accepted requests, by key id and request key (a
// signature, an Idempotency-Key, a body's hash). What makes acceptance hold across restarts and
// between core replicas; the guard's memory is a cache of it.

/** An accepted request as remembered: its body's hash, the answer it got, when (epoch ms). */
export interface Remembered {
  bodySha256: string;
  accepted: string;
  at: number;
}

interface AcceptedRow {
  key_id: string;
  request_key: string;
  body_sha256: string;
  accepted: string;
  at: string;
}

const rememberedOf = (row: Omit<AcceptedRow, 'key_id' | 'request_key'>): Remembered => ({
  bodySha256: row.body_sha256,
  accepted: row.accepted,
  at: Number(row.at),
});

/**
 * When any process last stored rows: a part's time is when it was written (or merged, which is
 * later), so the newest part is no older than the last row stored. Seconds, hence the second
 * added. -Infinity: no part, a new store.
 */
export async function lastStoredRows(ch: ClickHouse): Promise<number> {
  const [parts] = await ch.query<{ n: string; at: string }>(
    `SELECT count() AS n, toUnixTimestamp(max(modification_time)) AS at FROM system.parts
     WHERE database = currentDatabase() AND active AND table IN {tables:Array(String)}`,
    { tables: RECORD_TYPES },
  );
  return Number(parts?.n) > 0 ? Number(parts?.at) * 1000 + 1000 : Number.NEGATIVE_INFINITY;
}

/**
 * The requests accepted after `after`, newest first, at most `limit`, as [key id, request key,
 * what is remembered]. Idempotency keys are left out: they are always looked up.
 */
export async function acceptedSince(
  ch: ClickHouse,
  after: number,
  limit: number,
): Promise<[string, string, Remembered][]> {
  const rows = await ch.query<AcceptedRow>(
    `SELECT key_id, request_key, body_sha256, accepted, toUnixTimestamp64Milli(received_at) AS at
     FROM ingest_requests
     WHERE received_at > fromUnixTimestamp64Milli({since:Int64}) AND NOT startsWith(request_key, 'idem:')
     ORDER BY received_at DESC
     LIMIT {limit:UInt32}`,
    { since: after, limit },
  );
  return rows.map((row) => [row.key_id, row.request_key, rememberedOf(row)]);
}

/** What the table holds of `requestKeys` of one key id accepted after `cutoff`, newest first. */
export async function acceptedUnder(
  ch: ClickHouse,
  keyId: string,
  requestKeys: string[],
  cutoff: number,
): Promise<[string, Remembered][]> {
  const rows = await ch.query<Omit<AcceptedRow, 'key_id'>>(
    `SELECT request_key, body_sha256, accepted, toUnixTimestamp64Milli(received_at) AS at
     FROM ingest_requests
     WHERE key_id = {key:String} AND request_key IN {keys:Array(String)}
       AND received_at > fromUnixTimestamp64Milli({cutoff:Int64})
     ORDER BY received_at DESC`,
    { key: keyId, keys: requestKeys, cutoff },
  );
  return rows.map((row) => [row.request_key, rememberedOf(row)]);
}

/** Records a request as accepted under each of its keys. */
export async function storeAccepted(
  ch: ClickHouse,
  request: { keyId: string; projectId: string; keys: readonly string[] },
  value: Remembered,
): Promise<void> {
  await ch.insert(
    'ingest_requests',
    request.keys.map((requestKey) => ({
      key_id: request.keyId,
      request_key: requestKey,
      project_id: request.projectId,
      body_sha256: value.bodySha256,
      accepted: value.accepted,
      received_at: toChTime(value.at),
    })),
  );
}

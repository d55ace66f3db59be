import type { BatchRecordType, PreparedBatch } from './exporter-types';
import { newTraceId } from './ids';

/** A record waiting in the exporter's queue. */
export type Queued = { type: BatchRecordType; record: object };

// Keepalive requests may carry 64 KiB in flight per page; stay under it with room for another.
export const KEEPALIVE_BODY_BYTES = 48 * 1024;

/** The ingest body of `batch`: one array per record type. */
function bodyOf(batch: Queued[]): string {
  const body: Record<string, unknown[]> = {};
  for (const item of batch) {
    body[item.type] ??= [];
    body[item.type]!.push(item.record);
  }
  return JSON.stringify(body);
}

/**
 * The batch as bodies with their keys: one, or with `keepalive` halves until each fits the
 * keepalive budget. Cut once, before the first try: a retry must be the same body under the same key.
 */
export function prepare(batch: Queued[], keepalive: boolean): PreparedBatch[] {
  const body = bodyOf(batch);
  if (keepalive && body.length > KEEPALIVE_BODY_BYTES && batch.length > 1) {
    const half = Math.ceil(batch.length / 2);
    return [...prepare(batch.slice(0, half), keepalive), ...prepare(batch.slice(half), keepalive)];
  }
  return [{ body, idempotencyKey: newTraceId(), records: batch.length }];
}

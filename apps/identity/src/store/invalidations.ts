import type { Queryable } from '@svc/postgres';

// The invalidation log and the gateways' leases (migration 0004). Times are the database's clock
// (clock_timestamp()): every lease decision on this side compares that clock with itself.

export const INVALIDATION_CHANNEL = 'svc_invalidations';

export type InvalidationKind = 'token' | 'org' | 'project' | 'all';

export interface InvalidationChange {
  kind: InvalidationKind;
  token_id?: string;
  org_id?: string;
  project_id?: string;
}

export interface InvalidationEvent extends InvalidationChange {
  seq: number;
}

/**
 * Records a change that withdraws access, inside the caller's transaction (the same one that makes
 * the change), and returns its seq. The head row's lock serializes publishers until commit, so
 * events commit in seq order; NOTIFY is delivered at commit, to every identity instance.
 */
export async function recordInvalidation(tx: Queryable, change: InvalidationChange): Promise<number> {
  const { rows } = await tx.query<{ seq: number }>(
    'UPDATE invalidation_head SET seq = seq + 1 RETURNING seq',
  );
  const seq = Number(rows[0]!.seq);
  await tx.query(
    `INSERT INTO invalidation_events (seq, kind, token_id, org_id, project_id, at)
     VALUES ($1, $2, $3, $4, $5, clock_timestamp())`,
    [seq, change.kind, change.token_id ?? null, change.org_id ?? null, change.project_id ?? null],
  );
  await tx.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, String(seq)]);
  return seq;
}

/** The seq of the last committed event. */
export async function headSeq(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ seq: number }>('SELECT seq FROM invalidation_head');
  return Number(rows[0]?.seq ?? 0);
}

/** Committed events after `seq`, in order. */
export async function eventsAfter(q: Queryable, seq: number, limit = 1000): Promise<InvalidationEvent[]> {
  const { rows } = await q.query<{
    seq: number;
    kind: InvalidationKind;
    token_id: string | null;
    org_id: string | null;
    project_id: string | null;
  }>(
    `SELECT seq, kind, token_id, org_id, project_id FROM invalidation_events
     WHERE seq > $1 ORDER BY seq LIMIT $2`,
    [seq, limit],
  );
  return rows.map((r) => ({
    seq: Number(r.seq),
    kind: r.kind,
    ...(r.token_id ? { token_id: r.token_id } : {}),
    ...(r.org_id ? { org_id: r.org_id } : {}),
    ...(r.project_id ? { project_id: r.project_id } : {}),
  }));
}

export async function addSubscriber(
  q: Queryable,
  id: string,
  ackedSeq: number,
  leaseMs: number,
): Promise<void> {
  await q.query(
    `INSERT INTO invalidation_subscribers (subscriber_id, acked_seq, lease_until, connected_at)
     VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond', clock_timestamp())`,
    [id, ackedSeq, leaseMs],
  );
}

/**
 * The subscriber has applied every event up to `seq`: its lease is renewed. A lease that already
 * ran out is not revived (false): identity has stopped waiting for that gateway, which must
 * subscribe again and start from an empty cache.
 */
export async function renewLease(q: Queryable, id: string, seq: number, leaseMs: number): Promise<boolean> {
  const { rows } = await q.query<{ subscriber_id: string }>(
    `UPDATE invalidation_subscribers
     SET acked_seq = greatest(acked_seq, $2), lease_until = clock_timestamp() + $3 * interval '1 millisecond'
     WHERE subscriber_id = $1 AND lease_until > clock_timestamp()
     RETURNING subscriber_id`,
    [id, seq, leaseMs],
  );
  return rows.length === 1;
}

export async function removeSubscriber(q: Queryable, id: string): Promise<void> {
  await q.query('DELETE FROM invalidation_subscribers WHERE subscriber_id = $1', [id]);
}

/** Subscribers whose lease still runs and that have not applied event `seq` yet. */
export async function laggingSubscribers(q: Queryable, seq: number): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*) AS n FROM invalidation_subscribers
     WHERE lease_until > clock_timestamp() AND acked_seq < $1`,
    [seq],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Housekeeping: leases long gone, and events no scan can still need. */
export async function pruneInvalidations(q: Queryable): Promise<void> {
  await q.query(
    "DELETE FROM invalidation_subscribers WHERE lease_until < clock_timestamp() - interval '1 minute'",
  );
  await q.query(
    `DELETE FROM invalidation_events
     WHERE at < clock_timestamp() - interval '1 hour' AND seq < (SELECT seq FROM invalidation_head)`,
  );
}

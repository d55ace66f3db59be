import { createHash } from 'node:crypto';
import type { ClickHouse } from '@svc/clickhouse';
import { ConflictError, UserInputError } from '@svc/tool-kit';
import { toChTime } from '../storage/time';

// Ingest replay and retry (docs/ingest.md, "Retries and replays").
//
// A signed request is remembered once accepted: by its signature (key id + timestamp + signature)
// and, when the client sent one, by its Idempotency-Key. A repeat is answered before anything is
// written:
//   - the same Idempotency-Key with the same body: 200 with the first answer and `replayed: true`;
//   - the same Idempotency-Key with another body: 409;
//   - the same signature (a captured request sent again, or a retry without a key): 409.
// The signature check runs whatever Idempotency-Key comes with it: the key is not signed, so a
// replayed request under a fresh key is still refused.
//
// A request that failed half-way (storage down after the logs went in) is not remembered, so its
// retry runs again; every insert carries a deduplication token of the request and the tables drop
// a block whose token they already took. Memory is a cache: the table `ingest_requests` (one day)
// is what makes this hold across restarts and between core replicas.

const MEMORY_ENTRIES = 50_000;
const REMEMBER_MS = 24 * 3_600_000;
const MAX_KEY_LENGTH = 255;

export interface IngestRequestIdentity {
  keyId: string;
  projectId: string;
  timestamp: string;
  signature: string;
  /** The Idempotency-Key header as sent, if any. */
  idempotencyKey: string | undefined;
  body: Buffer;
}

export type ReplayDecision =
  | { kind: 'replayed'; accepted: Record<string, number> }
  | {
      kind: 'fresh';
      /** The deduplication token for the insert into `table`. */
      tokenFor(table: string): string;
      /** Remember the request as accepted (after every insert succeeded). */
      accepted(counts: Record<string, number>): Promise<void>;
      /** Forget the request is in progress (it failed; a retry runs again). */
      release(): void;
    };

export interface ReplayGuard {
  begin(request: IngestRequestIdentity): Promise<ReplayDecision>;
}

interface Remembered {
  bodySha256: string;
  accepted: string;
  at: number;
}

/** The Idempotency-Key value: a raw token or a structured-field string ("..."). */
export function parseIdempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const unquoted = /^"(.*)"$/.test(raw) ? raw.slice(1, -1) : raw;
  if (!/^[\x21-\x7e]+$/.test(unquoted) || unquoted.length > MAX_KEY_LENGTH) {
    throw new UserInputError(
      `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters (a UUID is a good choice).`,
    );
  }
  return unquoted;
}

const sha256 = (value: string | Buffer) => createHash('sha256').update(value).digest('hex');

export function createReplayGuard(deps: { ch: ClickHouse; now: () => number }): ReplayGuard {
  const memory = new Map<string, Remembered>();
  const inFlight = new Set<string>();
  const slot = (keyId: string, requestKey: string) => `${keyId}\u0000${requestKey}`;

  function remember(keyId: string, requestKey: string, value: Remembered): void {
    const id = slot(keyId, requestKey);
    memory.delete(id);
    memory.set(id, value);
    // Insertion order is age order: the oldest go first.
    while (memory.size > MEMORY_ENTRIES) memory.delete(memory.keys().next().value as string);
  }

  async function recall(keyId: string, requestKeys: string[]): Promise<Map<string, Remembered>> {
    const found = new Map<string, Remembered>();
    const cutoff = deps.now() - REMEMBER_MS;
    const missing: string[] = [];
    for (const key of requestKeys) {
      const hit = memory.get(slot(keyId, key));
      if (hit && hit.at > cutoff) found.set(key, hit);
      else missing.push(key);
    }
    if (missing.length === 0) return found;
    const rows = await deps.ch.query<{
      request_key: string;
      body_sha256: string;
      accepted: string;
      at: string;
    }>(
      `SELECT request_key, body_sha256, accepted, toUnixTimestamp64Milli(received_at) AS at
       FROM ingest_requests
       WHERE key_id = {key:String} AND request_key IN {keys:Array(String)}
         AND received_at > fromUnixTimestamp64Milli({cutoff:Int64})
       ORDER BY received_at DESC`,
      { key: keyId, keys: missing, cutoff },
    );
    for (const row of rows) {
      if (found.has(row.request_key)) continue;
      const value = { bodySha256: row.body_sha256, accepted: row.accepted, at: Number(row.at) };
      found.set(row.request_key, value);
      remember(keyId, row.request_key, value);
    }
    return found;
  }

  return {
    async begin(request) {
      const bodySha256 = sha256(request.body);
      const signatureKey = `sig:${sha256(`${request.timestamp}.${request.signature}`)}`;
      const idempotencyKey =
        request.idempotencyKey === undefined ? undefined : `idem:${request.idempotencyKey}`;
      const keys = idempotencyKey ? [idempotencyKey, signatureKey] : [signatureKey];

      const busy = keys.find((key) => inFlight.has(slot(request.keyId, key)));
      if (busy) {
        throw new ConflictError(
          busy === idempotencyKey
            ? 'A request with this Idempotency-Key is still being processed; retry when it has finished.'
            : 'This signed request is still being processed; it is not accepted twice.',
        );
      }
      const reserved = keys.map((key) => slot(request.keyId, key));
      for (const id of reserved) inFlight.add(id);
      const release = () => {
        for (const id of reserved) inFlight.delete(id);
      };

      try {
        const seen = await recall(request.keyId, keys);
        const earlier = idempotencyKey ? seen.get(idempotencyKey) : undefined;
        if (earlier) {
          if (earlier.bodySha256 !== bodySha256) {
            throw new ConflictError(
              'This Idempotency-Key was already used for another batch; use a new key for new data.',
            );
          }
          release();
          return { kind: 'replayed', accepted: JSON.parse(earlier.accepted) as Record<string, number> };
        }
        if (seen.has(signatureKey)) {
          throw new ConflictError(
            'This signed request was already accepted: a replay is refused. Sign each new request with a fresh timestamp; to retry safely, send an Idempotency-Key.',
          );
        }
      } catch (err) {
        release();
        throw err;
      }

      // The token names the request, not its rows: a retry whose rows differ in ingest time only
      // is still the same write.
      const tokenBase = sha256(`${request.keyId}\u0000${idempotencyKey ?? signatureKey}`);
      return {
        kind: 'fresh',
        tokenFor: (table) => `ingest:${tokenBase}:${table}`,
        release,
        async accepted(counts) {
          const accepted = JSON.stringify(counts);
          const at = deps.now();
          try {
            await deps.ch.insert(
              'ingest_requests',
              keys.map((requestKey) => ({
                key_id: request.keyId,
                request_key: requestKey,
                project_id: request.projectId,
                body_sha256: bodySha256,
                accepted,
                received_at: toChTime(at),
              })),
            );
            for (const requestKey of keys) remember(request.keyId, requestKey, { bodySha256, accepted, at });
          } finally {
            release();
          }
        },
      };
    },
  };
}

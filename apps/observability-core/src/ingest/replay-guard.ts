import { createHash } from 'node:crypto';
import type { ClickHouse } from '@svc/clickhouse';
import { MAX_CLOCK_SKEW_SECONDS, updateInSlices } from '@svc/ingest-auth';
import { BackendUnavailableError, ConflictError, UserInputError } from '@svc/tool-kit';
import { toChTime } from '../storage/time';
import { RECORD_TYPES } from './schemas';
import type { RequestTokens } from './write-batch';

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
// A request that was not acknowledged (it failed half-way, storage down after the logs went in;
// or the process was killed after its rows went in and before it was remembered) is not
// remembered, so its retry runs again, and must add only what the first try did not store. Every
// row carries a hash of its request's token (stored-rows.ts), so a retry that may follow such a
// try is told `mayBeStored` and the writer looks up, table by table, what is there already. The
// lookup costs an engine query, so it is made only when a try that stored rows unknown to memory
// cannot be ruled out: a try of this process that was not accepted (remembered as unsettled), or
// a try of another process. A sole writer knows every try since it started, and once loaded, when
// the process before it last stored rows (the newest part at start): a request signed later than
// that plus the clock skew, or a body past an exporter's retry window after it, cannot have been
// tried by another process; an Idempotency-Key names a try of any time; on a server, another
// replica may have tried anything.
// Memory is a cache: the table `ingest_requests` (one day) is what makes acceptance hold across
// restarts and between core replicas.
//
// An embedded store has one writer, this process: what it accepted is in its memory, and what the
// process before it accepted in the last minutes is loaded at start (one query), so no request
// costs a lookup in the table but those naming an Idempotency-Key, which may be a day old. Before
// that load, every request a previous process may have taken cost an engine query: the bench's
// OTLP ingest went from 53k to 68k spans/s without them.

const MEMORY_ENTRIES = 50_000;
const REMEMBER_MS = 24 * 3_600_000;
/** How long after a restart an exporter's retry of a body accepted before it may still come. */
const BODY_RETRY_WINDOW_MS = 10 * 60_000;
/**
 * What a process loads of its predecessor's accepted requests: a body's retry window, and a
 * signature's life (signed up to the clock skew before it was accepted, fresh up to the skew after
 * its timestamp), so every repeat a fresh process can be sent is answered from memory; and a
 * minute more, so that a repeat sent at the very start is not on the edge of what was loaded.
 */
const LOAD_WINDOW_MS = Math.max(BODY_RETRY_WINDOW_MS, 2 * MAX_CLOCK_SKEW_SECONDS * 1000) + 60_000;
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
      /** The deduplication token for the insert into `table`; says if a try may have stored rows. */
      tokenFor: RequestTokens;
      /** Remember the request as accepted (after every insert succeeded). */
      accepted(counts: Record<string, number>): Promise<void>;
      /** Forget the request is in progress (it failed; a retry runs again). */
      release(): void;
    };

export interface ReplayGuard {
  begin(request: IngestRequestIdentity): Promise<ReplayDecision>;
  /**
   * For collectors that cannot sign (OTLP): a body already accepted from this key is a retry, a
   * replay answered without writing; one still being written is a retryable 503.
   */
  beginBody(request: Pick<IngestRequestIdentity, 'keyId' | 'projectId' | 'body'>): Promise<ReplayDecision>;
  /**
   * Settles once the requests a previous process accepted lately are in memory (a sole writer's
   * guard loads them when made; until then it asks the table). Never rejects: a failed load leaves
   * the lookups to the table.
   */
  readonly loaded: Promise<void>;
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

/** A time no later than `bound`, if there is one (-Infinity: there is none). */
const notAfter = (ms: number, bound: number) => bound !== Number.NEGATIVE_INFINITY && ms <= bound;

const sha256 = (value: string | Buffer) => createHash('sha256').update(value).digest('hex');

/** A body's SHA-256, a megabyte at a time (a 10 MB body does not hold the event loop). */
async function bodyHash(body: Buffer): Promise<string> {
  const hash = createHash('sha256');
  await updateInSlices(hash, body);
  return hash.digest('hex');
}

export interface ReplayGuardDeps {
  ch: ClickHouse;
  now: () => number;
  /**
   * Since when this process is the only one that accepts requests into this store (an embedded
   * store: its data dir cannot be opened twice), so its memory knows every request accepted since.
   * A request signed later than this plus the allowed clock skew was then never accepted anywhere
   * else, and the table is not asked: that lookup was an engine query per ingest request. Once
   * `loaded`, memory also knows what the process before accepted in the minutes before this.
   */
  soleWriterSince?: number;
  /** Requests remembered in memory at most (default 50,000); older ones are asked of the table. */
  memoryEntries?: number;
  /** Told when loading what a previous process accepted failed (the table is asked instead). */
  onLoadFailed?: (err: unknown) => void;
}

interface AcceptedRow {
  key_id: string;
  request_key: string;
  body_sha256: string;
  accepted: string;
  at: string;
}

export function createReplayGuard(deps: ReplayGuardDeps): ReplayGuard {
  const memoryEntries = deps.memoryEntries ?? MEMORY_ENTRIES;
  const memory = new Map<string, Remembered>();
  const inFlight = new Set<string>();
  /** Requests this process tried and did not (yet) accept, by slot: when tried. */
  const unsettled = new Map<string, number>();
  /** When the newest entry memory had to drop was accepted: before it, memory is incomplete. */
  let newestForgotten = 0;
  /** When the newest unsettled try memory had to drop was made: before it, tries are unknown. */
  let newestForgottenTry = Number.NEGATIVE_INFINITY;
  /**
   * No other process stored rows after this: a sole writer's start, or once loaded the newest part
   * of an ingest table when it started (-Infinity: none, a new store). Another writer (a server's
   * other replicas) may store rows any time.
   */
  let othersStoredUntil = deps.soleWriterSince ?? Number.POSITIVE_INFINITY;
  /** Memory knows every request accepted after this: a sole writer's start, earlier once loaded. */
  let completeSince = deps.soleWriterSince;
  const slot = (keyId: string, requestKey: string) => `${keyId}\u0000${requestKey}`;

  /** Insertion order is age order: the oldest go first. */
  function trim(): void {
    while (memory.size > memoryEntries) {
      const oldest = memory.keys().next().value as string;
      newestForgotten = Math.max(newestForgotten, memory.get(oldest)?.at ?? 0);
      memory.delete(oldest);
    }
  }

  /** `ids` are being tried: unsettled until accepted. Insertion order is age order. */
  function tried(ids: readonly string[]): void {
    const at = deps.now();
    for (const id of ids) {
      unsettled.delete(id);
      unsettled.set(id, at);
    }
    while (unsettled.size > memoryEntries) {
      const [oldest, when] = unsettled.entries().next().value as [string, number];
      newestForgottenTry = Math.max(newestForgottenTry, when);
      unsettled.delete(oldest);
    }
  }

  /**
   * Whether a try made no earlier than `ms` may have stored rows unknown to memory: a try of
   * another process (one that stored nothing leaves nothing to find), or one memory dropped.
   */
  const unknownTryAfter = (ms: number) => notAfter(ms, othersStoredUntil) || notAfter(ms, newestForgottenTry);

  function remember(keyId: string, requestKey: string, value: Remembered): void {
    const id = slot(keyId, requestKey);
    memory.delete(id);
    memory.set(id, value);
    trim();
  }

  /**
   * What the previous process accepted in the last LOAD_WINDOW_MS before this one started, newest
   * first, as many as memory holds. Idempotency keys are left out: they are always looked up.
   */
  async function load(since: number): Promise<void> {
    // A part's time is when it was written (or merged, which is later): the newest part is no
    // older than the last row any process before this one stored. Seconds, hence the second added.
    const [parts] = await deps.ch.query<{ n: string; at: string }>(
      `SELECT count() AS n, toUnixTimestamp(max(modification_time)) AS at FROM system.parts
       WHERE database = currentDatabase() AND active AND table IN {tables:Array(String)}`,
      { tables: RECORD_TYPES },
    );
    const lastStored = Number(parts?.n) > 0 ? Number(parts?.at) * 1000 + 1000 : Number.NEGATIVE_INFINITY;
    const rows = await deps.ch.query<AcceptedRow>(
      `SELECT key_id, request_key, body_sha256, accepted, toUnixTimestamp64Milli(received_at) AS at
       FROM ingest_requests
       WHERE received_at > fromUnixTimestamp64Milli({since:Int64}) AND NOT startsWith(request_key, 'idem:')
       ORDER BY received_at DESC
       LIMIT {limit:UInt32}`,
      { since: since - LOAD_WINDOW_MS, limit: memoryEntries },
    );
    // Oldest first, then what this process took meanwhile (newer than any of them): memory's
    // order stays the order of age, which is the order it forgets in.
    const meanwhile = [...memory];
    memory.clear();
    for (let i = rows.length - 1; i >= 0; i--) {
      const row = rows[i]!;
      const id = slot(row.key_id, row.request_key);
      memory.delete(id);
      memory.set(id, { bodySha256: row.body_sha256, accepted: row.accepted, at: Number(row.at) });
    }
    for (const [id, value] of meanwhile) {
      memory.delete(id);
      memory.set(id, value);
    }
    // A full answer may have left older ones out: memory is complete only after the oldest here.
    if (rows.length >= memoryEntries) newestForgotten = Math.max(newestForgotten, Number(rows.at(-1)!.at));
    trim();
    completeSince = since - LOAD_WINDOW_MS;
    othersStoredUntil = Math.min(othersStoredUntil, lastStored);
  }

  const loaded =
    deps.soleWriterSince === undefined
      ? Promise.resolve()
      : load(deps.soleWriterSince).catch((err: unknown) => {
          try {
            deps.onLoadFailed?.(err);
          } catch {
            // Only a report: the guard works on without the load either way.
          }
        });

  function recallFromMemory(keyId: string, requestKeys: string[]): Map<string, Remembered> {
    const found = new Map<string, Remembered>();
    const cutoff = deps.now() - REMEMBER_MS;
    for (const key of requestKeys) {
      const hit = memory.get(slot(keyId, key));
      if (hit && hit.at > cutoff) found.set(key, hit);
    }
    return found;
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

  /** What `start` needs to know of a request: who sent it, what it is remembered by. */
  interface Identity {
    keyId: string;
    projectId: string;
    bodySha256: string;
    /** The keys it is remembered by; the first names it in the deduplication token. */
    keys: string[];
    /** Whether this process's memory alone can tell if it was accepted before. */
    memoryKnowsAll: boolean;
    /** The earliest an earlier try of it can have been made (-Infinity: any time). */
    earliestTry: number;
  }

  /**
   * Reserves the request's keys (a repeat while it runs is refused by `busy`), looks up what was
   * accepted before under them, and lets `judge` answer a repeat (a replay to answer, or an error
   * to throw); else the request is fresh.
   */
  async function start(
    request: Identity,
    busy: (key: string) => Error,
    judge: (seen: Map<string, Remembered>) => ReplayDecision | undefined,
  ): Promise<ReplayDecision> {
    const { keyId, keys, bodySha256 } = request;
    const taken = keys.find((key) => inFlight.has(slot(keyId, key)));
    if (taken) throw busy(taken);
    const reserved = keys.map((key) => slot(keyId, key));
    for (const id of reserved) inFlight.add(id);
    const release = () => {
      for (const id of reserved) inFlight.delete(id);
    };
    try {
      const seen = request.memoryKnowsAll ? recallFromMemory(keyId, keys) : await recall(keyId, keys);
      const repeat = judge(seen);
      if (repeat) {
        release();
        return repeat;
      }
    } catch (err) {
      release();
      throw err;
    }
    const mayBeStored = reserved.some((id) => unsettled.has(id)) || unknownTryAfter(request.earliestTry);
    tried(reserved);
    // The token names the request, not its rows: a retry whose rows differ in ingest time only
    // is still the same write.
    const tokenBase = sha256(`${keyId}\u0000${keys[0]}`);
    return {
      kind: 'fresh',
      tokenFor: Object.assign((table: string) => `ingest:${tokenBase}:${table}`, { mayBeStored }),
      release,
      async accepted(counts) {
        const accepted = JSON.stringify(counts);
        const at = deps.now();
        try {
          await deps.ch.insert(
            'ingest_requests',
            keys.map((requestKey) => ({
              key_id: keyId,
              request_key: requestKey,
              project_id: request.projectId,
              body_sha256: bodySha256,
              accepted,
              received_at: toChTime(at),
            })),
          );
          for (const requestKey of keys) remember(keyId, requestKey, { bodySha256, accepted, at });
          for (const id of reserved) unsettled.delete(id);
        } finally {
          release();
        }
      },
    };
  }

  /** Memory has dropped nothing accepted after `ms`. */
  const memoryCompleteAfter = (ms: number) =>
    completeSince !== undefined && ms > completeSince && ms > newestForgotten;

  return {
    loaded,
    async begin(request) {
      const bodySha256 = await bodyHash(request.body);
      const signatureKey = `sig:${sha256(`${request.timestamp}.${request.signature}`)}`;
      const idempotencyKey =
        request.idempotencyKey === undefined ? undefined : `idem:${request.idempotencyKey}`;
      // Accepted at all, a signed request was accepted after its timestamp less the clock skew.
      // An Idempotency-Key may name a request from any time in the last day.
      const acceptedAfter = Number(request.timestamp) * 1000 - MAX_CLOCK_SKEW_SECONDS * 1000;
      return start(
        {
          keyId: request.keyId,
          projectId: request.projectId,
          bodySha256,
          keys: idempotencyKey ? [idempotencyKey, signatureKey] : [signatureKey],
          memoryKnowsAll: idempotencyKey === undefined && memoryCompleteAfter(acceptedAfter),
          // A retry under a key is signed anew: its first try may be of any time.
          earliestTry: idempotencyKey === undefined ? acceptedAfter : Number.NEGATIVE_INFINITY,
        },
        (key) =>
          new ConflictError(
            key === idempotencyKey
              ? 'A request with this Idempotency-Key is still being processed; retry when it has finished.'
              : 'This signed request is still being processed; it is not accepted twice.',
          ),
        (seen) => {
          const earlier = idempotencyKey ? seen.get(idempotencyKey) : undefined;
          if (earlier) {
            if (earlier.bodySha256 !== bodySha256)
              throw new ConflictError(
                'This Idempotency-Key was already used for another batch; use a new key for new data.',
              );
            return { kind: 'replayed', accepted: JSON.parse(earlier.accepted) as Record<string, number> };
          }
          if (seen.has(signatureKey))
            throw new ConflictError(
              'This signed request was already accepted: a replay is refused. Sign each new request with a fresh timestamp; to retry safely, send an Idempotency-Key.',
            );
          return undefined;
        },
      );
    },

    async beginBody(request) {
      const bodySha256 = await bodyHash(request.body);
      return start(
        {
          keyId: request.keyId,
          projectId: request.projectId,
          bodySha256,
          keys: [`body:${bodySha256}`],
          // Exporters retry within minutes: past the first minutes of an embedded core, a retry
          // of a body a previous process took is not to be expected (and its token still drops
          // it when it was inserted alone).
          memoryKnowsAll: memoryCompleteAfter(deps.now() - BODY_RETRY_WINDOW_MS),
          earliestTry: deps.now() - BODY_RETRY_WINDOW_MS,
        },
        // Retryable: the first may yet fail, and an exporter drops what a 4xx refuses.
        () => new BackendUnavailableError('ingest', 1),
        (seen) => {
          const earlier = seen.get(`body:${bodySha256}`);
          return earlier
            ? { kind: 'replayed', accepted: JSON.parse(earlier.accepted) as Record<string, number> }
            : undefined;
        },
      );
    },
  };
}

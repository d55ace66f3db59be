import { createHash } from 'node:crypto';
import type { ClickHouse } from '@svc/clickhouse';
import { MAX_CLOCK_SKEW_SECONDS, updateInSlices } from '@svc/ingest-auth';
import type { RequestTokens } from '../store/write-batch';
import { AcceptedMemory, slotOf } from './accepted-memory';
import {
  acceptedSince,
  acceptedUnder,
  lastStoredRows,
  type Remembered,
  storeAccepted,
} from './accepted-requests';
import {
  BODY_RETRY_WINDOW_MS,
  bodyCheck,
  type Repeat,
  type RepeatCheck,
  signedRequestCheck,
} from './repeats';
import { UnsettledTries } from './unsettled-tries';

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
// costs a lookup in the table but those naming an Idempotency-Key, which may be a day old: a
// lookup is an engine query, too dear to make for every request.

const MEMORY_ENTRIES = 50_000;
const REMEMBER_MS = 24 * 3_600_000;
/**
 * What a process loads of its predecessor's accepted requests: a body's retry window, and a
 * signature's life (signed up to the clock skew before it was accepted, fresh up to the skew after
 * its timestamp), so every repeat a fresh process can be sent is answered from memory; and a
 * minute more, so that a repeat sent at the very start is not on the edge of what was loaded.
 */
const LOAD_WINDOW_MS = Math.max(BODY_RETRY_WINDOW_MS, 2 * MAX_CLOCK_SKEW_SECONDS * 1000) + 60_000;

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
  | Repeat
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

/** What a guard knows: accepted requests, tries that may have stored rows, requests being written. */
interface GuardState {
  deps: ReplayGuardDeps;
  memoryEntries: number;
  memory: AcceptedMemory;
  tries: UnsettledTries;
  /** Slots of the requests being written now: a repeat meanwhile is `busy`. */
  inFlight: Set<string>;
}

export function createReplayGuard(deps: ReplayGuardDeps): ReplayGuard {
  const memoryEntries = deps.memoryEntries ?? MEMORY_ENTRIES;
  const g: GuardState = {
    deps,
    memoryEntries,
    memory: new AcceptedMemory(memoryEntries, deps.soleWriterSince),
    tries: new UnsettledTries(memoryEntries, deps.soleWriterSince ?? Number.POSITIVE_INFINITY),
    inFlight: new Set(),
  };
  const loaded =
    deps.soleWriterSince === undefined
      ? Promise.resolve()
      : load(g, deps.soleWriterSince).catch((err: unknown) => {
          try {
            deps.onLoadFailed?.(err);
          } catch {
            // Only a report: the guard works on without the load either way.
          }
        });
  const completeAfter = (ms: number) => g.memory.completeAfter(ms);
  return {
    loaded,
    async begin(request) {
      const bodySha256 = await bodyHash(request.body);
      const signatureKey = `sig:${sha256(`${request.timestamp}.${request.signature}`)}`;
      return start(g, signedRequestCheck(request, bodySha256, signatureKey, completeAfter));
    },
    async beginBody(request) {
      const bodySha256 = await bodyHash(request.body);
      return start(g, bodyCheck(request, bodySha256, deps.now(), completeAfter));
    },
  };
}

/**
 * What the previous process accepted in the last LOAD_WINDOW_MS before this one started (`since`),
 * newest first, as many as memory holds; and when it last stored rows.
 */
async function load(g: GuardState, since: number): Promise<void> {
  const lastStored = await lastStoredRows(g.deps.ch);
  const accepted = await acceptedSince(g.deps.ch, since - LOAD_WINDOW_MS, g.memoryEntries);
  g.memory.load(
    accepted.map(([keyId, requestKey, value]) => [slotOf(keyId, requestKey), value]),
    accepted.length >= g.memoryEntries,
    since - LOAD_WINDOW_MS,
  );
  g.tries.othersStoredNoLaterThan(lastStored);
}

/** What was accepted in the last day under `requestKeys`: from memory, else from the table. */
async function recall(
  g: GuardState,
  keyId: string,
  requestKeys: string[],
  memoryKnowsAll: boolean,
): Promise<Map<string, Remembered>> {
  const found = new Map<string, Remembered>();
  const cutoff = g.deps.now() - REMEMBER_MS;
  const missing: string[] = [];
  for (const key of requestKeys) {
    const hit = g.memory.get(slotOf(keyId, key), cutoff);
    if (hit) found.set(key, hit);
    else missing.push(key);
  }
  if (memoryKnowsAll || missing.length === 0) return found;
  for (const [requestKey, value] of await acceptedUnder(g.deps.ch, keyId, missing, cutoff)) {
    if (found.has(requestKey)) continue;
    found.set(requestKey, value);
    g.memory.remember(slotOf(keyId, requestKey), value);
  }
  return found;
}

/**
 * Reserves the request's keys (a repeat while it runs is refused by `busy`), looks up what was
 * accepted before under them, and lets `judge` answer a repeat (a replay to answer, or an error
 * to throw); else the request is fresh.
 */
async function start(g: GuardState, check: RepeatCheck): Promise<ReplayDecision> {
  const { keyId, keys } = check.identity;
  const taken = keys.find((key) => g.inFlight.has(slotOf(keyId, key)));
  if (taken) throw check.busy(taken);
  const reserved = keys.map((key) => slotOf(keyId, key));
  for (const slot of reserved) g.inFlight.add(slot);
  const release = () => {
    for (const slot of reserved) g.inFlight.delete(slot);
  };
  try {
    const repeat = check.judge(await recall(g, keyId, keys, check.identity.memoryKnowsAll));
    if (repeat) {
      release();
      return repeat;
    }
  } catch (err) {
    release();
    throw err;
  }
  const mayBeStored = g.tries.mayBeStored(reserved, check.identity.earliestTry);
  g.tries.tried(reserved, g.deps.now());
  return fresh(g, check.identity, reserved, release, mayBeStored);
}

/** A fresh request's tokens, and its acceptance: remembered in the table, then in memory. */
function fresh(
  g: GuardState,
  request: RepeatCheck['identity'],
  reserved: string[],
  release: () => void,
  mayBeStored: boolean,
): ReplayDecision {
  // The token names the request, not its rows: a retry whose rows differ in ingest time only
  // is still the same write.
  const tokenBase = sha256(`${request.keyId}\u0000${request.keys[0]}`);
  return {
    kind: 'fresh',
    tokenFor: Object.assign((table: string) => `ingest:${tokenBase}:${table}`, { mayBeStored }),
    release,
    async accepted(counts) {
      const value = { bodySha256: request.bodySha256, accepted: JSON.stringify(counts), at: g.deps.now() };
      try {
        await storeAccepted(g.deps.ch, request, value);
        for (const requestKey of request.keys) g.memory.remember(slotOf(request.keyId, requestKey), value);
        g.tries.settled(reserved);
      } finally {
        release();
      }
    },
  };
}

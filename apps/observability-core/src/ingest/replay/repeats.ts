import { BackendUnavailableError, ConflictError } from '@svc/errors';
import { MAX_CLOCK_SKEW_SECONDS } from '@svc/ingest-auth';
import type { Remembered } from './accepted-requests';

// How a repeat is told and answered, for a signed request and for an unsigned body (OTLP).

/** A request's answer: a replay of an accepted one, or fresh (the guard adds what it needs). */
export type Repeat = { kind: 'replayed'; accepted: Record<string, number> };

/** What the guard needs to know of a request: who sent it, what it is remembered by. */
export interface Identity {
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

/** A request and how its repeats are answered. */
export interface RepeatCheck {
  identity: Identity;
  /** The error for a repeat while the request (its `key`) is still being written. */
  busy(key: string): Error;
  /** The answer to a repeat (a replay, or an error thrown), from what was accepted before. */
  judge(seen: Map<string, Remembered>): Repeat | undefined;
}

/** How long after a restart an exporter's retry of a body accepted before it may still come. */
export const BODY_RETRY_WINDOW_MS = 10 * 60_000;

const replayOf = (earlier: Remembered): Repeat => ({
  kind: 'replayed',
  accepted: JSON.parse(earlier.accepted) as Record<string, number>,
});

/**
 * A signed request, remembered by its signature and its Idempotency-Key if it has one. The same
 * key and body: a replay; the same key with another body, or the same signature: 409.
 * `memoryCompleteAfter(ms)`: memory has dropped nothing accepted after `ms`.
 */
export function signedRequestCheck(
  request: {
    keyId: string;
    projectId: string;
    timestamp: string;
    signature: string;
    idempotencyKey: string | undefined;
  },
  bodySha256: string,
  signatureKey: string,
  memoryCompleteAfter: (ms: number) => boolean,
): RepeatCheck {
  const idempotencyKey = request.idempotencyKey === undefined ? undefined : `idem:${request.idempotencyKey}`;
  // Accepted at all, a signed request was accepted after its timestamp less the clock skew.
  // An Idempotency-Key may name a request from any time in the last day.
  const acceptedAfter = Number(request.timestamp) * 1000 - MAX_CLOCK_SKEW_SECONDS * 1000;
  return {
    identity: {
      keyId: request.keyId,
      projectId: request.projectId,
      bodySha256,
      keys: idempotencyKey ? [idempotencyKey, signatureKey] : [signatureKey],
      memoryKnowsAll: idempotencyKey === undefined && memoryCompleteAfter(acceptedAfter),
      // A retry under a key is signed anew: its first try may be of any time.
      earliestTry: idempotencyKey === undefined ? acceptedAfter : Number.NEGATIVE_INFINITY,
    },
    busy: (key) =>
      new ConflictError(
        key === idempotencyKey
          ? 'A request with this Idempotency-Key is still being processed; retry when it has finished.'
          : 'This signed request is still being processed; it is not accepted twice.',
      ),
    judge: (seen) => {
      const earlier = idempotencyKey ? seen.get(idempotencyKey) : undefined;
      if (earlier) {
        if (earlier.bodySha256 !== bodySha256)
          throw new ConflictError(
            'This Idempotency-Key was already used for another batch; use a new key for new data.',
          );
        return replayOf(earlier);
      }
      if (seen.has(signatureKey))
        throw new ConflictError(
          'This signed request was already accepted: a replay is refused. Sign each new request with a fresh timestamp; to retry safely, send an Idempotency-Key.',
        );
      return undefined;
    },
  };
}

/**
 * A body from a collector that cannot sign (OTLP), remembered by its hash: one accepted before
 * is a replay, one still being written a retryable 503.
 */
export function bodyCheck(
  request: { keyId: string; projectId: string },
  bodySha256: string,
  nowMs: number,
  memoryCompleteAfter: (ms: number) => boolean,
): RepeatCheck {
  const key = `body:${bodySha256}`;
  return {
    identity: {
      keyId: request.keyId,
      projectId: request.projectId,
      bodySha256,
      keys: [key],
      // Exporters retry within minutes: past the first minutes of an embedded core, a retry
      // of a body a previous process took is not to be expected (and its token still drops
      // it when it was inserted alone).
      memoryKnowsAll: memoryCompleteAfter(nowMs - BODY_RETRY_WINDOW_MS),
      earliestTry: nowMs - BODY_RETRY_WINDOW_MS,
    },
    // Retryable: the first may yet fail, and an exporter drops what a 4xx refuses.
    busy: () => new BackendUnavailableError('ingest', 1),
    judge: (seen) => {
      const earlier = seen.get(key);
      return earlier ? replayOf(earlier) : undefined;
    },
  };
}

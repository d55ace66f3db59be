import type { IngestTarget } from './dsn';
import { KEEPALIVE_BODY_BYTES } from './exporter-batches';
import {
  EXPORTER_HEADER,
  type ExportError,
  type ExporterOptions,
  type ExportResponse,
  type ExportTransport,
  IDEMPOTENCY_HEADER,
  type PreparedBatch,
} from './exporter-types';
import { fetchSend } from './fetch-send';
import { sleep } from './unref';

// A Date answer further than this from the local clock is taken as the local clock being wrong.
const CLOCK_SKEW_MS = 60_000;

/**
 * Requests allowed in flight: AIMD between 1 and `max` (halved after a 429, a 5xx or a network
 * error, grown back by one per success), so a struggling core gets air. A tuple of closures, not an
 * object: the web bundle pays for every property name, not for a local one.
 */
export type Gate = ReturnType<typeof createGate>;

export function createGate(max: number) {
  let allowed = max;
  /** Requests on the wire now, and the retries waiting for one of them to end. */
  let sending = 0;
  const waiting: (() => void)[] = [];
  return [
    /** How many requests may be in flight now. */
    () => allowed,
    /**
     * Runs `request` counted as on the wire, once fewer are on the wire than are allowed now (the
     * check and the count in one step: every waiter woken sees the others that went before it);
     * null without running it when `skip()` says so by then.
     */
    async <T>(request: () => Promise<T>, skip: () => boolean): Promise<T | null> => {
      while (sending >= allowed) await new Promise<void>((resolve) => waiting.push(resolve));
      if (skip()) return null;
      sending++;
      try {
        return await request();
      } finally {
        sending--;
        // Each waiting retry looks again: after a success more than one may go (the limit grew).
        for (const wake of waiting.splice(0)) wake();
      }
    },
    /** A success: one more request allowed, up to `max`. */
    () => {
      allowed = Math.min(max, allowed + 1);
    },
    /** A struggling core: half as many requests allowed. */
    () => {
      allowed = Math.max(1, Math.floor(allowed / 2));
    },
  ] as const;
}

const delivered = (status = 0) => status >= 200 && status < 300;

/** The answer's Retry-After in ms (at most a minute), if it names one. */
function retryAfterMs(res: ExportResponse): number | undefined {
  const after = Number(res.header('retry-after'));
  return Number.isFinite(after) && after > 0 ? Math.min(after * 1000, 60_000) : undefined;
}

/**
 * What posts one batch, with its retries, and counts it sent or dropped. Each try is signed anew
 * under the batch's Idempotency-Key; a 401 whose Date shows the local clock off by more than a
 * minute is tried again once with the server's time.
 */
export function createPoster(
  options: ExporterOptions,
  transport: ExportTransport,
  target: IngestTarget,
  [, through, succeeded, struggled]: Gate,
  stats: { sent: number; dropped: number },
  report: (error: ExportError) => void,
  /** The batches takeUndelivered gave away: no more tries here, their copies go under the same key. */
  handedOver: WeakSet<PreparedBatch>,
): (part: PreparedBatch) => Promise<void> {
  const send = transport.send ?? fetchSend;
  const url = transport.url(target);
  /** Server time minus local time, once a 401 showed the local clock is off. */
  let clockOffsetMs = 0;

  /** Whether a 401's Date shows the local clock off, in which case the offset is now corrected. */
  function skewCorrected(date: string | null): boolean {
    const serverMs = Date.parse(date ?? ''); // NaN without one
    if (!Number.isFinite(serverMs)) return false;
    const offset = serverMs - Date.now();
    if (Math.abs(offset - clockOffsetMs) < CLOCK_SKEW_MS) return false;
    clockOffsetMs = offset;
    return true;
  }

  /** One try; undefined on a network error or timeout (retried like a 5xx). */
  async function tryOnce(part: PreparedBatch): Promise<ExportResponse | undefined> {
    const ts = Math.floor((Date.now() + clockOffsetMs) / 1000);
    try {
      const res = await send(url, {
        headers: {
          'content-type': 'application/json',
          ...(await transport.headers(target, ts, part.body)),
          [IDEMPOTENCY_HEADER]: part.idempotencyKey,
          [EXPORTER_HEADER]: '1',
        },
        body: part.body,
        // One record larger than the keepalive budget goes without it: late rather than never.
        keepalive: transport.keepalive === true && part.body.length <= KEEPALIVE_BODY_BYTES,
        timeoutMs: options.timeoutMs ?? 10_000,
      });
      // Counted before the request leaves the gate: the retries it wakes see the grown limit.
      if (delivered(res.status)) {
        stats.sent += part.records;
        succeeded();
      }
      return res;
    } catch {
      // A network error or timeout: undefined.
    }
  }

  return async function post(part) {
    let clockFixed = false;
    for (let attempt = 1; ; attempt++) {
      // A retry waits for a request to end when fewer are allowed now than are on the wire.
      // Handed over (to an app's storage) by then: no more tries here, its copy goes under the same key.
      const res = await through(
        () => tryOnce(part),
        () => handedOver.has(part),
      );
      if (res === null) return;
      const status = res?.status;
      if (delivered(status)) return;
      if (status === 401 && !clockFixed && skewCorrected(res!.header('date'))) {
        clockFixed = true;
        attempt--;
        continue;
      }
      // 409 under our key: an earlier try of this batch is still being written (its answer was
      // lost, or timed out here); a later try gets its answer. Any other 4xx (400, 401, 413):
      // the core refused the records themselves, and sending again cannot help.
      const refused = (status ?? 500) < 500 && status !== 409 && status !== 429;
      // A struggling core gets air; a 409 only says this batch's earlier try is not done yet.
      if (!refused && status !== 409) struggled();
      if (handedOver.has(part)) return;
      // One place counts a batch dropped: refused, or out of tries.
      if (refused || attempt >= (options.maxAttempts ?? 5)) {
        stats.dropped += part.records;
        report({
          reason: refused ? 'rejected' : 'gave_up',
          records: part.records,
          // A refused batch names its status whatever it is; one given up only a real one.
          ...(refused || status ? { status } : {}),
        });
        return;
      }
      await sleep(
        (res && retryAfterMs(res)) ?? Math.random() * (options.retryBaseMs ?? 200) * 2 ** (attempt - 1),
      );
    }
  };
}

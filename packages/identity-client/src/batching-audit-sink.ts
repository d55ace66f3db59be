import type { AuditEntry, AuditSink } from '@svc/audit';
import type { Metrics } from '@svc/metrics';

export interface AuditBatchOptions {
  /** Most records in one write; a call's records are never split. */
  maxRecords?: number;
  /**
   * Batches being written at once (default 1); further calls wait and join the next batch. With
   * two, a call finishing during a write leaves at once in the second slot, often alone; identity's
   * cost is mostly per write, not per record, so one write at a time gathers what finishes meanwhile.
   */
  maxInFlight?: number;
  /**
   * Under load only (calls came in while the last write was in flight), the next write waits for
   * more calls: at most this share of the oldest waiting call's own duration (default 0.05)...
   */
  lingerShare?: number;
  /** ...and at most this long (default 20 ms). 0 turns the wait off. */
  maxLingerMs?: number;
  metrics: Metrics;
}

interface Pending {
  entries: AuditEntry[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit of tool-call audit records (docs/decisions.md, "Audit batches"). Concurrent calls'
 * records travel to the store in one write, committed in one transaction. An idle gateway adds no
 * delay: a call's records leave at once when no write is in flight. Calls arriving during a write
 * join the next batch; and once calls did arrive during a write (the gateway is under load), the
 * next write waits a little for more: at most `lingerShare` of the oldest waiting call's duration
 * and `maxLingerMs`, less once `maxRecords` are waiting. Identity's cost is mostly per write (~1
 * ms of its CPU), so under load a call's share of it shrinks with the batch, for a bounded part
 * of the call's own latency. Each call's `write` resolves only when the batch holding its records
 * is committed; a failed batch rejects every call in it (each then fails with 503).
 */
export function createBatchingAuditSink(inner: AuditSink, options: AuditBatchOptions): AuditSink {
  const maxRecords = options.maxRecords ?? 256;
  const maxInFlight = options.maxInFlight ?? 1;
  const lingerShare = options.lingerShare ?? 0.05;
  const maxLingerMs = options.maxLingerMs ?? 20;
  const sizes = options.metrics.histogram(
    'audit_batch_records',
    'Records per audit write',
    [],
    [1, 2, 4, 8, 16, 32, 64, 128, 256],
  );
  const queue: Pending[] = [];
  let queuedRecords = 0;
  let inFlight = 0;
  let scheduled = false;
  /** Calls came in while the last write was in flight: the next one may wait for more. */
  let loaded = false;
  let linger: NodeJS.Timeout | undefined;

  /** How long the next write waits for more calls: 0 at once (not loaded, or a full batch waiting). */
  function lingerMs(): number {
    if (!loaded || maxLingerMs <= 0 || queuedRecords >= maxRecords) return 0;
    const oldest = queue[0]!.entries[0]?.duration_ms ?? 0;
    return Math.min(maxLingerMs, oldest * lingerShare);
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    // Calls that finish in the same turn of the event loop share a batch.
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  /**
   * A write is done: its calls are answered, after noting whether calls came in meanwhile (before
   * the answers, whose callers' next calls would otherwise look like load).
   */
  function settle(batch: readonly Pending[], err: unknown): void {
    inFlight--;
    loaded = queue.length > 0;
    for (const p of batch) err === undefined ? p.resolve() : p.reject(err);
    if (queue.length > 0) schedule();
  }

  function pump(): void {
    if (linger) return;
    if (queue.length > 0 && inFlight < maxInFlight) {
      const wait = lingerMs();
      if (wait >= 1) {
        linger = setTimeout(() => {
          linger = undefined;
          loaded = false;
          pump();
        }, wait);
        return;
      }
    }
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch: Pending[] = [];
      let records = 0;
      while (queue.length > 0 && (batch.length === 0 || records + queue[0]!.entries.length <= maxRecords)) {
        const next = queue.shift()!;
        batch.push(next);
        records += next.entries.length;
      }
      queuedRecords -= records;
      inFlight++;
      sizes.observe({}, records);
      inner.write(batch.flatMap((p) => p.entries)).then(
        () => settle(batch, undefined),
        (err) => settle(batch, err),
      );
    }
  }

  return {
    write(entries) {
      if (entries.length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        queue.push({ entries, resolve, reject });
        queuedRecords += entries.length;
        if (linger && queuedRecords >= maxRecords) {
          // A full batch is waiting: it goes now.
          clearTimeout(linger);
          linger = undefined;
          loaded = false;
        }
        schedule();
      });
    },
  };
}

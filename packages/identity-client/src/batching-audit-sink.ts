import type { AuditEntry, AuditSink } from '@svc/audit';
import type { Metrics } from '@svc/metrics';

export interface AuditBatchOptions {
  /** Most records in one write; a call's records are never split. */
  maxRecords?: number;
  /**
   * Batches being written at once (default 1); further calls wait and join the next batch. With
   * two, a call finishing during a write left at once in the second slot, often alone; identity's
   * cost is mostly per write (a batch of 1: ~1 ms of its CPU, of 4: ~1.2 ms), so one write at a
   * time gathers what finishes meanwhile.
   */
  maxInFlight?: number;
  metrics: Metrics;
}

interface Pending {
  entries: AuditEntry[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit of tool-call audit records (docs/decisions.md, "Audit batches"). Concurrent calls'
 * records travel to the store in one write, committed in one transaction. There is no waiting
 * window: a call's records leave at once when no write is in flight, and calls arriving during a
 * write join the next batch, so batches grow exactly when the store is the bottleneck and
 * an idle gateway adds no delay. Each call's `write` resolves only when the batch holding its
 * records is committed; a failed batch rejects every call in it (each then fails with 503).
 */
export function createBatchingAuditSink(inner: AuditSink, options: AuditBatchOptions): AuditSink {
  const maxRecords = options.maxRecords ?? 256;
  const maxInFlight = options.maxInFlight ?? 1;
  const sizes = options.metrics.histogram(
    'audit_batch_records',
    'Records per audit write',
    [],
    [1, 2, 4, 8, 16, 32, 64, 128, 256],
  );
  const queue: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    // Calls that finish in the same turn of the event loop share a batch.
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  function pump(): void {
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch: Pending[] = [];
      let records = 0;
      while (queue.length > 0 && (batch.length === 0 || records + queue[0]!.entries.length <= maxRecords)) {
        const next = queue.shift()!;
        batch.push(next);
        records += next.entries.length;
      }
      inFlight++;
      sizes.observe({}, records);
      inner
        .write(batch.flatMap((p) => p.entries))
        .then(
          () => {
            for (const p of batch) p.resolve();
          },
          (err) => {
            for (const p of batch) p.reject(err);
          },
        )
        .finally(() => {
          inFlight--;
          if (queue.length > 0) schedule();
        });
    }
  }

  return {
    write(entries) {
      if (entries.length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        queue.push({ entries, resolve, reject });
        schedule();
      });
    },
  };
}

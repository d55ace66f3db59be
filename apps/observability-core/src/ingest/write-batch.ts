import type { ClickHouse } from '@svc/clickhouse';
import type { Metrics } from '@svc/metrics';
import { BackendUnavailableError, type Logger } from '@svc/tool-kit';
import type { Symbolicator } from '../symbolication/symbolicator';
import { rowsOf } from './rows';
import { RECORD_TYPES, type RecordType, type ValidBatch } from './schemas';

export interface BatchWriterDeps {
  ch: ClickHouse;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  /** Symbolicates crashes on ingest when the project has matching symbol files (and settles their signature). */
  symbolicator?: Symbolicator;
}

/**
 * Writes a validated batch into one project, table by table, each insert under the deduplication
 * token `tokenFor(table)` (a retried request adds nothing twice). Returns the rows written per type.
 */
export type BatchWriter = (
  batch: ValidBatch,
  projectId: string,
  tokenFor: (table: string) => string,
) => Promise<Record<RecordType, number>>;

/**
 * The one write path of every ingest route (signed batches, OTLP, the stack's own spans on the
 * internal route): what is accepted anywhere is stored the same way.
 */
export function createBatchWriter(deps: BatchWriterDeps): BatchWriter {
  const accepted = deps.metrics.counter('core_ingest_records_total', 'Ingested records by type', ['type']);
  return async (batch, projectId, tokenFor) => {
    const prepared = deps.symbolicator
      ? await deps.symbolicator.prepareIngest(projectId, batch.crashes, deps.now())
      : undefined;
    const rows = rowsOf(prepared ? { ...batch, crashes: prepared.crashes } : batch, projectId, deps.now());
    const counts = {} as Record<RecordType, number>;
    for (const type of RECORD_TYPES) {
      counts[type] = rows[type].length;
      try {
        await deps.ch.insert(type, rows[type], { deduplicationToken: tokenFor(type) });
      } catch (err) {
        deps.logger.error({ err, table: type, project_id: projectId }, 'ingest insert failed');
        throw new BackendUnavailableError('storage');
      }
      accepted.inc({ type }, rows[type].length);
    }
    await prepared?.store();
    return counts;
  };
}

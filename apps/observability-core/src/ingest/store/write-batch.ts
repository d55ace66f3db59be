import type { ClickHouse } from '@svc/clickhouse';
import { BackendUnavailableError } from '@svc/errors';
import type { Metrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import type { Symbolicator } from '../../symbolication/symbolicator';
import { RECORD_TYPES, type RecordType, type ValidBatch } from '../schemas';
import { rowsOf } from './rows';
import {
  createStoredRowsFinder,
  notYetStored,
  type PendingRows,
  ROW_TOKEN_COLUMN,
  rowTokenOf,
  type StoredRanges,
} from './stored-rows';

export interface BatchWriterDeps {
  ch: ClickHouse;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  /** Symbolicates crashes on ingest when the project has matching symbol files (and settles their signature). */
  symbolicator?: Symbolicator;
}

/** A request's deduplication token for its insert into `table`. */
export interface RequestTokens {
  (table: string): string;
  /**
   * An earlier try of the same request may have stored some of its rows and not been
   * acknowledged (it failed part-way, or the process ended first): the writer then looks up what
   * each table holds of it before inserting (replay/replay-guard.ts decides).
   */
  readonly mayBeStored?: boolean;
}

/**
 * Writes a validated batch into one project, table by table, each insert under the deduplication
 * token `tokenFor(table)`, each row carrying a hash of it (stored-rows.ts). A retried request adds
 * nothing twice: when `tokenFor.mayBeStored`, only the rows no earlier try stored go in. Returns
 * the rows of the batch per type (stored now or before).
 */
export type BatchWriter = (
  batch: ValidBatch,
  projectId: string,
  tokenFor: RequestTokens,
) => Promise<Record<RecordType, number>>;

/**
 * The one write path of every ingest route (signed batches, OTLP, the stack's own spans on the
 * internal route): what is accepted anywhere is stored the same way.
 */
export function createBatchWriter(deps: BatchWriterDeps): BatchWriter {
  const accepted = deps.metrics.counter('core_ingest_records_total', 'Ingested records by type', ['type']);
  const findStored = createStoredRowsFinder(deps.ch);
  const storageDown = (err: unknown, context: Record<string, unknown>) => {
    deps.logger.error({ err, ...context }, 'ingest insert failed');
    return new BackendUnavailableError('storage');
  };
  return async (batch, projectId, tokenFor) => {
    const prepared = deps.symbolicator
      ? await deps.symbolicator.prepareIngest(projectId, batch.crashes, deps.now())
      : undefined;
    const rows = rowsOf(prepared ? { ...batch, crashes: prepared.crashes } : batch, projectId, deps.now());
    const counts = {} as Record<RecordType, number>;
    const pending: (PendingRows & { token: string })[] = [];
    for (const type of RECORD_TYPES) {
      counts[type] = rows[type].length;
      if (rows[type].length === 0) continue;
      const token = tokenFor(type);
      const rowToken = rowTokenOf(token);
      for (const row of rows[type]) row[ROW_TOKEN_COLUMN] = rowToken;
      pending.push({ table: type, token, rowToken, rows: rows[type] });
    }
    let stored: StoredRanges | undefined;
    if (tokenFor.mayBeStored && pending.length > 0) {
      try {
        stored = await findStored({ projectId, pending });
      } catch (err) {
        throw storageDown(err, { project_id: projectId, lookup: 'stored rows' });
      }
    }
    for (const table of pending) {
      const missing = stored ? notYetStored(table, stored) : table.rows;
      if (missing.length === 0) continue;
      // What an earlier try left out goes in under a token of its own: the engine may know the
      // first one, and a part of the rest would repeat the block id of a part it took then.
      const token = stored ? `${table.token}:rest-of-${stored.get(table.table)?.length ?? 0}` : table.token;
      try {
        await deps.ch.insert(table.table, missing, { deduplicationToken: token });
      } catch (err) {
        throw storageDown(err, { table: table.table, project_id: projectId });
      }
      accepted.inc({ type: table.table }, missing.length);
    }
    await prepared?.store();
    return counts;
  };
}

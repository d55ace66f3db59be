import type { QueryOptions } from '@svc/clickhouse';

/**
 * The options of a point query: one that reads a few granules (rows by a key, the newest rows of a
 * project in sort-key order). It runs on one thread: with so little to read, the engine's thread
 * pool costs more CPU than it saves (docs/decisions.md, "Cost per tool call"). Queries that scan
 * (aggregates, filters on non-key columns) keep the engine's own choice.
 */
export function pointQuery(signal: AbortSignal | undefined): QueryOptions {
  return { signal, maxThreads: 1 };
}

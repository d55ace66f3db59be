import { ClickHouseError } from '@clickhouse/client';

// How a query can fail that its caller may want to tell apart from a broken engine.

/** The query's signal aborted and the engine stopped it. */
export class QueryCancelledError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The query was cancelled.', options);
    this.name = 'QueryCancelledError';
  }
}

/** An embedded client was asked for where the chdb package is not installed (the container images). */
export class EmbeddedEngineMissingError extends Error {
  constructor(options?: { cause?: unknown }) {
    super(
      'Embedded ClickHouse (the chdb package) is not installed here: connect to a ClickHouse server instead.',
      options,
    );
    this.name = 'EmbeddedEngineMissingError';
  }
}

/** Which per-query budget the engine enforced, if the error is one (ClickHouse error codes). */
export function exceededBudget(err: unknown): 'time' | 'memory' | undefined {
  const code = String((err as { code?: unknown })?.code ?? '');
  // 159 TIMEOUT_EXCEEDED; 241 MEMORY_LIMIT_EXCEEDED.
  if (code === '159') return 'time';
  if (code === '241') return 'memory';
  return undefined;
}

/**
 * The engine ran the statement and refused it with an exception of its own (data it cannot store,
 * a limit), so an insert stored nothing. False for a failure to reach it or to hear its answer
 * (connection refused or reset, a timeout), after which an insert may or may not have been stored.
 * chDB's errors carry the engine's code as `clickhouseCode`; a server's arrive as ClickHouseError.
 */
export function refusedByEngine(err: unknown): boolean {
  if (err instanceof ClickHouseError) return true;
  return typeof (err as { clickhouseCode?: unknown } | null)?.clickhouseCode === 'number';
}

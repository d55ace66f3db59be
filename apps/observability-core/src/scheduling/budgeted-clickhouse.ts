import type { ClickHouse } from '@svc/clickhouse';

export interface CallBudget {
  /** Epoch ms by which the call must have answered; each query's engine time limit is what is left. */
  deadline: number;
  /** The caller went away: running queries are stopped in the engine, waiting ones given up. */
  signal: AbortSignal;
  /** Bytes one query may use (the engine's max_memory_usage). */
  maxMemoryUsageBytes: number;
  /** The call's engine priority (fair-scheduler.ts): a busy project's queries yield to a quiet one's. */
  priority: number;
}

/**
 * The ClickHouse a tool call sees: every query runs under the call's budget, signal and priority,
 * whatever options the tool passed (a tool may ask for less, never for more). Writes (a tool
 * storing a symbolication) are small and pass straight through.
 */
export function budgetedClickHouse(ch: ClickHouse, budget: CallBudget): ClickHouse {
  return {
    database: ch.database,
    embedded: ch.embedded,
    concurrency: ch.concurrency,
    query(sql, params, options) {
      const leftSeconds = Math.max(1, Math.ceil((budget.deadline - Date.now()) / 1000));
      return ch.query(sql, params, {
        maxExecutionTimeSeconds: Math.min(leftSeconds, options?.maxExecutionTimeSeconds ?? leftSeconds),
        maxMemoryUsageBytes: Math.min(
          budget.maxMemoryUsageBytes,
          options?.maxMemoryUsageBytes ?? budget.maxMemoryUsageBytes,
        ),
        signal: budget.signal,
        priority: budget.priority,
        ...(options?.onStart ? { onStart: options.onStart } : {}),
        // A point query asks for one thread (POINT_QUERY): a few granules need no pool, and the
        // pool's threads cost CPU a call.
        ...(options?.maxThreads ? { maxThreads: options.maxThreads } : {}),
        // A project with more calls in the core than one runs its queries on one thread, at a
        // lower CPU priority: the cores stay free for a quiet project's next query.
        ...(budget.priority > 1 ? { maxThreads: 1, threadNiceness: 10 } : {}),
      });
    },
    insert: (table, rows, options) => ch.insert(table, rows, options),
    command: (sql, params) => ch.command(sql, params),
    ping: () => ch.ping(),
    close: () => Promise.reject(new Error('a tool call does not close the shared client')),
  };
}

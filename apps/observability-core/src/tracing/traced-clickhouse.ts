import { type ClickHouse, exceededBudget } from '@svc/clickhouse';
import type { Tracer } from '@svc/self-trace';

const round = (ms: number) => Math.round(ms * 1000) / 1000;
const FIRST_TABLE = /\bFROM\s+([A-Za-z_][A-Za-z0-9_.]*)/i;

/** `SELECT logs`: the statement's verb and first table, as the span's operation (bounded, no values). */
function operationOf(sql: string): string {
  const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
  const table = FIRST_TABLE.exec(sql)?.[1];
  return table ? `${verb} ${table}` : `clickhouse ${verb}`;
}

/**
 * The ClickHouse a traced tool call sees: one client span per query, child of the active span (the
 * tool's), with the time it waited for an idle chDB session (`db.queue_wait_ms`, the queue in front
 * of the engine) apart from the time it ran (`db.run_ms`): what answers "why was it slow". The SQL
 * text is recorded (values travel as parameters, never in it); the parameters are not.
 * Inserts and commands pass through untraced.
 */
export function tracedClickHouse(ch: ClickHouse, tracer: Tracer): ClickHouse {
  return {
    database: ch.database,
    embedded: ch.embedded,
    concurrency: ch.concurrency,
    async query<T>(
      sql: string,
      params?: Record<string, unknown>,
      options?: Parameters<ClickHouse['query']>[2],
    ) {
      const span = tracer.startSpan(operationOf(sql), {
        kind: 'client',
        attributes: { 'db.system': 'clickhouse', 'db.embedded': String(ch.embedded) },
      });
      span.setAttribute('db.statement', sql.replace(/\s+/g, ' ').trim());
      if (options?.priority !== undefined) span.setAttribute('db.priority', options.priority);
      const asked = performance.now();
      let started: number | undefined;
      try {
        const rows = await ch.query<T>(sql, params, {
          ...options,
          onStart: () => {
            started = performance.now();
            options?.onStart?.();
          },
        });
        span.setAttribute('db.rows', rows.length);
        span.setStatus('ok');
        return rows;
      } catch (err) {
        // The engine's message may quote the data: the type, and which budget stopped it, only.
        span.setStatus('error');
        span.setAttribute('error.type', err instanceof Error ? err.name : typeof err);
        const budget = exceededBudget(err);
        if (budget) span.setAttribute('db.budget_exceeded', budget);
        throw err;
      } finally {
        const ended = performance.now();
        span.setAttribute('db.queue_wait_ms', round((started ?? ended) - asked));
        span.setAttribute('db.run_ms', round(started === undefined ? 0 : ended - started));
        span.end();
      }
    },
    insert: (table, rows, options) => ch.insert(table, rows, options),
    command: (sql, params) => ch.command(sql, params),
    ping: () => ch.ping(),
    close: () => ch.close(),
  };
}

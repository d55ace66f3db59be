/** What can run a statement: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** Runs a script of one or more statements without parameters (migrations, DDL). */
  exec(sql: string): Promise<void>;
}

export interface Postgres extends Queryable {
  /** `pg` against a server, or embedded PGlite. Callers rarely need this; tests and logs do. */
  readonly kind: 'pg' | 'pglite';
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * LISTEN on `channel`: `onNotify` gets each payload, and `null` when notifications may have been
   * lost (the listening connection was re-established), so the caller re-reads what it watches.
   * Resolves with the function that stops listening.
   */
  listen(channel: string, onNotify: (payload: string | null) => void): Promise<() => Promise<void>>;
  /** Resolves when the store answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type PostgresOptions =
  | { url: string; maxConnections?: number }
  /** ':memory:' for a throwaway in-memory database, else a folder PGlite keeps its files in. */
  | { dataDir: string };

// How to reach ClickHouse: a server over HTTP, or chDB embedded in this process.

export interface ServerOptions {
  url: string;
  database?: string;
  username?: string;
  password?: string;
  /** Sockets to the server at most (queries in flight at once); default 16. */
  maxOpenConnections?: number;
}

export interface EmbeddedOptions {
  /** chDB data directory, or ':memory:'. chDB binds one data dir per process (see client.ts). */
  path: string;
  database?: string;
  /** chDB sessions, so queries that can run at once (default 4; see client.ts). */
  sessions?: number;
}

export type ClickHouseOptions = (ServerOptions | EmbeddedOptions) & {
  /** Defaults for the per-query limits; each query may lower or raise them. */
  defaults?: QueryLimits;
};

export interface QueryLimits {
  /** Seconds before the engine aborts the query (`max_execution_time`). */
  maxExecutionTimeSeconds?: number;
  /** Bytes of memory one query may use (`max_memory_usage`). */
  maxMemoryUsageBytes?: number;
}

export interface QueryOptions extends QueryLimits {
  /** Aborting stops the query in the engine (KILL QUERY), not only the wait for it. */
  signal?: AbortSignal;
  /** ClickHouse `priority`: while a query with a lower number runs, higher ones pause. 0: none. */
  priority?: number;
  /** Threads the query may use (ClickHouse `max_threads`); unset: as many as the engine likes. */
  maxThreads?: number;
  /**
   * Linux nice value of the query's threads (ClickHouse `os_thread_priority`): higher yields the
   * CPU to others. The engine applies it only with CAP_SYS_NICE, otherwise it is a no-op.
   */
  threadNiceness?: number;
  /**
   * Called once the query is handed to the engine: embedded, after its wait for an idle chDB
   * session (a tracer tells that wait from the run by it); on a server, at once.
   */
  onStart?: () => void;
}

export function isEmbedded(options: ServerOptions | EmbeddedOptions): options is EmbeddedOptions {
  return 'path' in options && typeof options.path === 'string';
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Database and table names are identifiers we choose, never user input; still, refuse anything odd. */
export function assertIdentifier(kind: string, name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`invalid ClickHouse ${kind} name: ${JSON.stringify(name)}`);
  return name;
}

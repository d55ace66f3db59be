// How to reach ClickHouse: a server over HTTP, or chDB embedded in this process.

export interface ServerOptions {
  url: string;
  database?: string;
  username?: string;
  password?: string;
}

export interface EmbeddedOptions {
  /** chDB data directory, or ':memory:'. chDB binds one data dir per process (see client.ts). */
  path: string;
  database?: string;
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
  signal?: AbortSignal;
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

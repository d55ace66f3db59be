import { type ClickHouseClient, type ClickHouseSettings, createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import {
  assertIdentifier,
  type ClickHouseOptions,
  type EmbeddedOptions,
  isEmbedded,
  type QueryLimits,
  type QueryOptions,
  type ServerOptions,
} from './options';

/** The one ClickHouse interface of the stack: same calls on a server and on embedded chDB. */
export interface ClickHouse {
  readonly database: string;
  readonly embedded: boolean;
  /** JSONEachRow rows. Values only through `{name:Type}` bound parameters, never spliced into `sql`. */
  query<T>(sql: string, params?: Record<string, unknown>, options?: QueryOptions): Promise<T[]>;
  /**
   * With a `deduplicationToken`, an insert the table has already taken under the same token is
   * dropped by the engine (tables with a non-replicated deduplication window): a retried write
   * never adds its rows twice, across restarts too.
   */
  insert(
    table: string,
    rows: readonly Record<string, unknown>[],
    options?: { deduplicationToken?: string },
  ): Promise<void>;
  /** DDL and other statements without a result. */
  command(sql: string, params?: Record<string, unknown>): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

const DEFAULT_LIMITS: Required<QueryLimits> = {
  maxExecutionTimeSeconds: 30,
  maxMemoryUsageBytes: 2 * 1024 * 1024 * 1024,
};

/**
 * Opens a client and makes sure `database` exists.
 *
 * Embedded: chDB's engine is a process singleton bound to one data dir. Several clients on the
 * SAME path coexist (each has its own session, so its own current database); opening a DIFFERENT
 * path while one is open is rejected, and works again once every client of the first has been
 * closed. So a process uses one path, and isolation (e.g. between test files) is by database.
 * chDB ignores the client's `database` option, hence the `USE` on the session; on a server the
 * option travels with every request (HTTP is stateless) and `USE` is not needed.
 */
export async function createClickHouse(options: ClickHouseOptions): Promise<ClickHouse> {
  const database = assertIdentifier('database', options.database ?? 'default');
  const limits = { ...DEFAULT_LIMITS, ...options.defaults };
  const embedded = isEmbedded(options);
  const client = embedded ? await openEmbedded(options, database) : await openServer(options, database);
  return wrap(client, database, embedded, limits);
}

async function openEmbedded(options: EmbeddedOptions, database: string): Promise<ClickHouseClient> {
  // chdb types its Connection against @clickhouse/client-common 1.23.0, the client against its own
  // bundled copy; the runtime contract is the same one, the declarations just are not identical.
  const connection = createChdbConnection({ path: options.path }) as unknown as ClientConnection;
  const client = createClient({ connection });
  try {
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
    await client.command({ query: `USE ${database}` });
  } catch (err) {
    await client.close();
    throw err;
  }
  return client;
}

async function openServer(options: ServerOptions, database: string): Promise<ClickHouseClient> {
  const auth = { username: options.username, password: options.password };
  // The database must exist before a client may name it in every request.
  const bootstrap = createClient({ url: options.url, ...auth });
  try {
    await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  } finally {
    await bootstrap.close();
  }
  return createClient({ url: options.url, database, ...auth });
}

function settingsFor(limits: Required<QueryLimits>, options?: QueryOptions): ClickHouseSettings {
  return {
    // 64-bit integers as JSON strings on both backends, so no caller silently loses precision.
    output_format_json_quote_64bit_integers: 1,
    max_execution_time: options?.maxExecutionTimeSeconds ?? limits.maxExecutionTimeSeconds,
    max_memory_usage: String(options?.maxMemoryUsageBytes ?? limits.maxMemoryUsageBytes),
  };
}

function wrap(
  client: ClickHouseClient,
  database: string,
  embedded: boolean,
  limits: Required<QueryLimits>,
): ClickHouse {
  return {
    database,
    embedded,
    async query<T>(sql: string, params: Record<string, unknown> = {}, options?: QueryOptions) {
      const result = await client.query({
        query: sql,
        query_params: params,
        format: 'JSONEachRow',
        clickhouse_settings: settingsFor(limits, options),
        abort_signal: options?.signal,
      });
      return result.json<T>();
    },
    async insert(table, rows, options) {
      if (rows.length === 0) return;
      const token = options?.deduplicationToken;
      await client.insert({
        table: assertIdentifier('table', table),
        values: rows as Record<string, unknown>[],
        format: 'JSONEachRow',
        clickhouse_settings: {
          ...settingsFor(limits),
          ...(token ? { insert_deduplicate: 1, insert_deduplication_token: token } : {}),
        },
      });
    },
    async command(sql, params = {}) {
      await client.command({ query: sql, query_params: params, clickhouse_settings: settingsFor(limits) });
    },
    async ping() {
      const answer = await client.ping();
      return answer.success;
    },
    close: () => client.close(),
  };
}

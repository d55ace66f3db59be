import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type ClickHouseClient, type ClickHouseSettings, createClient } from '@clickhouse/client';
import { encodeRowsInSlices, rowArraysInSlices } from './encode-rows';
import { EmbeddedEngineMissingError, QueryCancelledError } from './errors';
import {
  assertIdentifier,
  type ClickHouseOptions,
  type EmbeddedOptions,
  isEmbedded,
  type QueryLimits,
  type QueryOptions,
  type ServerOptions,
} from './options';
import { renderQueryParams } from './render-params';
import { SessionPool } from './session-pool';

/** The one ClickHouse interface of the stack: same calls on a server and on embedded chDB. */
export interface ClickHouse {
  readonly database: string;
  readonly embedded: boolean;
  /** How many queries the engine runs at once for this client (embedded: its sessions). */
  readonly concurrency: number;
  /**
   * JSONEachRow rows. Values only through `{name:Type}` parameters, never spliced into `sql`.
   * When `options.signal` aborts, the query is stopped in the engine (KILL QUERY) and the call
   * rejects with QueryCancelledError once it has stopped.
   */
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

/**
 * chDB's own insert (`connection.chdb.rawInsert`): the bytes go to the engine as they are and its
 * parser reads them, where the client's insert would build one SQL string of `INSERT ... FORMAT`
 * and the data for chDB's SQL parser to wade through, several times the time per row.
 */
interface RawInsert {
  rawInsert(params: {
    table: string;
    values: Buffer;
    format: 'JSONCompactEachRow';
    columns: readonly string[];
    settings: Record<string, string | number | boolean>;
  }): Promise<unknown>;
}

/** One embedded session: the client for statements, and the raw insert of its connection. */
interface EmbeddedSession {
  client: ClickHouseClient;
  raw: RawInsert;
  /**
   * The settings the session holds now, as far as we know: chDB keeps what a statement SET, so a
   * statement need only SET what differs. Emptied when a statement fails (its SETs may or may not
   * have run).
   */
  held: Map<string, unknown>;
}

/**
 * What a statement must SET on `session` of the settings it wants: those the session does not hold
 * already. chDB runs each setting as a statement of its own before the query, so stating them all
 * every time would cost a small query more than its own work.
 */
function settingsToSet(session: EmbeddedSession, wanted: ClickHouseSettings): ClickHouseSettings {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(wanted))
    if (value !== undefined && session.held.get(key) !== value) out[key] = value;
  return out as ClickHouseSettings;
}

/** Runs a statement that SETs `wanted` on `session`, and keeps track of what the session holds. */
async function withSettings<T>(
  session: EmbeddedSession,
  wanted: ClickHouseSettings,
  run: (settings: ClickHouseSettings) => Promise<T>,
): Promise<T> {
  try {
    const result = await run(settingsToSet(session, wanted));
    for (const [key, value] of Object.entries(wanted)) if (value !== undefined) session.held.set(key, value);
    return result;
  } catch (err) {
    session.held.clear();
    throw err;
  }
}

const DEFAULT_LIMITS: Required<QueryLimits> = {
  maxExecutionTimeSeconds: 30,
  maxMemoryUsageBytes: 2 * 1024 * 1024 * 1024,
};

/**
 * Sessions of an embedded client: queries on different sessions run in parallel (docs/decisions.md,
 * "Fair sharing of the core").
 */
export const DEFAULT_EMBEDDED_SESSIONS = 4;

/**
 * Opens a client and makes sure `database` exists.
 *
 * Embedded: chDB's engine is a process singleton bound to one data dir. Several sessions on the
 * SAME path coexist (each with its own current database); opening a DIFFERENT path while one is
 * open is rejected, and works again once every session of the first has been closed. So a process
 * uses one path, and isolation (e.g. between test files) is by database. A session runs one query
 * at a time, so a client holds a few (`sessions`) and hands each query an idle one, plus one more
 * for KILL QUERY and ping that never waits behind a busy session. chDB ignores the client's
 * `database` option, hence the `USE` on each session; on a server the option travels with every
 * request (HTTP is stateless).
 */
export async function createClickHouse(options: ClickHouseOptions): Promise<ClickHouse> {
  const database = assertIdentifier('database', options.database ?? 'default');
  const limits = { ...DEFAULT_LIMITS, ...options.defaults };
  if (isEmbedded(options)) {
    const count = Math.max(1, Math.floor(options.sessions ?? DEFAULT_EMBEDDED_SESSIONS));
    const opened: EmbeddedSession[] = [];
    try {
      for (let i = 0; i <= count; i++) opened.push(await openEmbeddedSession(options, database));
    } catch (err) {
      await Promise.all(opened.map((s) => s.client.close()));
      throw err;
    }
    const [control, ...sessions] = opened as [EmbeddedSession, ...EmbeddedSession[]];
    return embeddedClient(new SessionPool(sessions), control.client, database, limits);
  }
  return serverClient(await openServer(options, database), database, limits);
}

/**
 * chDB (its engine is a 540 MB library) is loaded only when an embedded client is opened: a
 * process on a ClickHouse server runs without it, so the container images leave it out.
 */
async function loadChdb(): Promise<typeof import('chdb/connection')> {
  try {
    return await import('chdb/connection');
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new EmbeddedEngineMissingError({ cause: err });
  }
}

async function openEmbeddedSession(options: EmbeddedOptions, database: string): Promise<EmbeddedSession> {
  const { createChdbConnection } = await loadChdb();
  const chdb = createChdbConnection({ path: options.path });
  // chdb types its Connection against @clickhouse/client-common 1.23.0, the client against its own
  // bundled copy; the runtime contract is the same one, the declarations just are not identical.
  const client = createClient({ connection: chdb as unknown as ClientConnection });
  try {
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
    await client.command({ query: `USE ${database}` });
  } catch (err) {
    await client.close();
    throw err;
  }
  return { client, raw: chdb.chdb as unknown as RawInsert, held: new Map() };
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
  return createClient({
    url: options.url,
    database,
    ...auth,
    max_open_connections: Math.max(1, Math.floor(options.maxOpenConnections ?? 16)),
  });
}

/** The settings of every statement, on both backends. */
function settingsFor(
  limits: Required<QueryLimits>,
  options?: QueryOptions & { marker?: string },
): ClickHouseSettings {
  return {
    // 64-bit integers as JSON strings on both backends, so no caller silently loses precision.
    output_format_json_quote_64bit_integers: 1,
    max_execution_time: options?.maxExecutionTimeSeconds ?? limits.maxExecutionTimeSeconds,
    max_memory_usage: String(options?.maxMemoryUsageBytes ?? limits.maxMemoryUsageBytes),
    // While a query with a lower number runs, the engine pauses those with higher ones (0: none).
    priority: String(options?.priority ?? 0),
    // Stated on every statement (chDB keeps a session's settings): 0 is the engine's own choice.
    max_threads: options?.maxThreads ?? 0,
    os_thread_priority: String(options?.threadNiceness ?? 0),
    // The handle KILL QUERY finds a query by on a server (system.processes.Settings['log_comment']);
    // empty on embedded sessions, whose statements carry theirs in their text (kill()).
    log_comment: options?.marker ?? '',
    // A tool's answer is small (the gateway's answer budget bounds it): writing it out on a thread
    // of its own costs a thread hand-off on every query (docs/decisions.md, "Cost per tool call").
    output_format_parallel_formatting: 0,
    // An insert body is far below the 10 MB a parallel parse splits at, so the parse runs as one
    // chunk either way; the parallel path only adds its threads.
    input_format_parallel_parsing: 0,
    // The engine's sampling profiler arms two timers on every thread of every query; nothing here
    // reads its samples (no trace_log), so it is off (docs/decisions.md, "Cost per tool call").
    query_profiler_real_time_period_ns: '0',
    query_profiler_cpu_time_period_ns: '0',
    // A point query reads a few small parts the page cache holds: a plain pread on its own thread,
    // not a hand-off to the reader pool and back (-3 to -4% of its CPU; scans keep the default).
    ...(options?.maxThreads === 1 ? { local_filesystem_read_method: 'pread' } : {}),
  };
}

/**
 * chDB applies settings with SET on the session, so a setting of the previous statement on that
 * session still holds unless set again: every statement states its deduplication, or an insert
 * would inherit the last token. `deduplicate_insert` (ClickHouse 26) overrides
 * `insert_deduplicate`; without a token it is off, or identical rows sent twice on purpose would
 * be dropped by their content hash.
 */
function embeddedSettings(
  limits: Required<QueryLimits>,
  options?: QueryOptions & { marker?: string; deduplicationToken?: string },
): ClickHouseSettings {
  const token = options?.deduplicationToken ?? '';
  return {
    // The session keeps a point query's read method: every other statement restores the default.
    local_filesystem_read_method: 'pread_threadpool',
    ...settingsFor(limits, options),
    deduplicate_insert: token ? 'enable' : 'disable',
    insert_deduplication_token: token,
  };
}

/** A server keeps no settings between requests; the token goes only where there is one. */
function serverInsertSettings(limits: Required<QueryLimits>, token: string | undefined): ClickHouseSettings {
  return {
    ...settingsFor(limits),
    ...(token ? { insert_deduplicate: 1, insert_deduplication_token: token } : {}),
  };
}

/**
 * Rows as JSONCompactEachRow: the columns named once, each row an array in their order (half the
 * bytes of JSONEachRow, and less for the engine to parse). A column a row lacks (or has as
 * undefined or null) is sent as null, which the engine stores as the column's default
 * (input_format_null_as_default, on by default), as it would a key missing from a JSONEachRow row;
 * a column no row has a value for is left out, which stores the same default with nothing to parse
 * (an optional span field absent from a whole batch).
 */
export function compactRows(rows: readonly Record<string, unknown>[]): {
  columns: string[];
  values: unknown[][];
} {
  const named = Object.keys(rows[0] ?? {});
  const known = new Set(named);
  for (const row of rows)
    for (const key in row)
      if (!known.has(key)) {
        known.add(key);
        named.push(key);
      }
  const columns = named.filter((column) => rows.some((row) => row[column] != null));
  for (const column of columns) assertIdentifier('column', column);
  const values = rows.map((row) => columns.map((column) => row[column] ?? null));
  return { columns, values };
}

/** Settings as an INSERT's SETTINGS clause takes them (no undefined values). */
function statementSettings(settings: ClickHouseSettings): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(settings))
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      out[key] = value;
  return out;
}

/**
 * KILL QUERY for the query tagged `marker` (a UUID we made, so a safe literal). Best effort. On a
 * server the tag is the statement's log_comment setting (it travels with the request); embedded,
 * it opens the statement's text (tagged()): a setting there is a SET statement of its own, ~1 ms
 * of CPU on every query for a tag only a cancellation reads. The KILL's own text does not start
 * with it, so it never matches itself.
 */
async function kill(control: ClickHouseClient, marker: string, where: 'setting' | 'text'): Promise<void> {
  const condition =
    where === 'setting'
      ? `Settings['log_comment'] = '${marker}'`
      : `startsWith(query, '${tagged(marker, '')}')`;
  await control.command({ query: `KILL QUERY WHERE ${condition} ASYNC` }).catch(() => undefined);
}

/**
 * A JSONEachRow answer as rows, in one JSON.parse: a row is one line, and JSON escapes every line
 * break inside a value, so the lines joined by commas make an array. chDB answers a statement
 * whole; the client's json() would read it through a stream pipeline and parse row by row, more
 * CPU on every query (docs/decisions.md, "Cost per tool call").
 */
export function parseJsonEachRow<T>(text: string): T[] {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body.length === 0 ? [] : (JSON.parse(`[${body.replaceAll('\n', ',')}]`) as T[]);
}

/** A statement's text opened by its marker, as system.processes shows it. */
function tagged(marker: string, sql: string): string {
  return `/* ${marker} */ ${sql}`;
}

function newMarker(): string {
  return `svc:${randomUUID()}`;
}

function embeddedClient(
  pool: SessionPool<EmbeddedSession>,
  control: ClickHouseClient,
  database: string,
  limits: Required<QueryLimits>,
): ClickHouse {
  return {
    database,
    embedded: true,
    concurrency: pool.size,
    async query<T>(sql: string, params: Record<string, unknown> = {}, options?: QueryOptions) {
      const signal = options?.signal;
      const marker = newMarker();
      const rendered = tagged(marker, renderQueryParams(sql, params));
      const wanted = embeddedSettings(limits, options);
      // A session already holding this statement's settings runs it without a SET first (a point
      // query and a scan want different threads and read methods; each SET is a statement).
      const session = await pool.acquire(
        signal,
        options?.priority ?? 0,
        (s) => Object.keys(settingsToSet(s, wanted)).length,
      );
      options?.onStart?.();
      let cancelled = false;
      const onAbort = () => {
        cancelled = true;
        void kill(control, marker, 'text');
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        if (signal?.aborted) throw new QueryCancelledError();
        // No abort_signal here: chdb-node would settle the promise at once while the engine still
        // runs; the session is handed back only once the engine has stopped (KILL takes ~30 ms).
        const rows = await withSettings(session, wanted, async (settings) =>
          parseJsonEachRow<T>(
            await (
              await session.client.query({
                query: rendered,
                format: 'JSONEachRow',
                clickhouse_settings: settings,
              })
            ).text(),
          ),
        );
        if (cancelled) throw new QueryCancelledError();
        return rows;
      } catch (err) {
        if (cancelled) throw new QueryCancelledError({ cause: err });
        throw err;
      } finally {
        signal?.removeEventListener('abort', onAbort);
        pool.release(session);
      }
    },
    async insert(table, rows, options) {
      if (rows.length === 0) return;
      // Encoded before a session is taken, in slices (encode-rows.ts): a big insert neither holds
      // the event loop nor a session while it is written out.
      const { columns, body } = await encodeRowsInSlices(rows);
      const settings = statementSettings(
        embeddedSettings(limits, { deduplicationToken: options?.deduplicationToken }),
      );
      const session = await pool.acquire();
      try {
        await session.raw.rawInsert({
          table: `${database}.${assertIdentifier('table', table)}`,
          values: body,
          format: 'JSONCompactEachRow',
          columns,
          settings,
        });
      } finally {
        // Its SETTINGS clause is the statement's own; should the engine ever keep one the session
        // held otherwise, we no longer know that one, and the next query states it again.
        for (const [key, value] of Object.entries(settings))
          if (session.held.get(key) !== value) session.held.delete(key);
        pool.release(session);
      }
    },
    async command(sql, params = {}) {
      const rendered = renderQueryParams(sql, params);
      const session = await pool.acquire();
      try {
        await withSettings(session, embeddedSettings(limits), (settings) =>
          session.client.command({ query: rendered, clickhouse_settings: settings }),
        );
      } finally {
        pool.release(session);
      }
    },
    async ping() {
      // On the control session: a liveness probe never waits behind a long query.
      const answer = await control.ping();
      return answer.success;
    },
    async close() {
      await pool.drain();
      await Promise.all([...pool.all().map((s) => s.client), control].map((c) => c.close()));
    },
  };
}

function serverClient(client: ClickHouseClient, database: string, limits: Required<QueryLimits>): ClickHouse {
  return {
    database,
    embedded: false,
    concurrency: Number.POSITIVE_INFINITY,
    async query<T>(sql: string, params: Record<string, unknown> = {}, options?: QueryOptions) {
      const signal = options?.signal;
      const marker = newMarker();
      const onAbort = () => void kill(client, marker, 'setting');
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        if (signal?.aborted) throw new QueryCancelledError();
        options?.onStart?.();
        const result = await client.query({
          query: sql,
          query_params: params,
          format: 'JSONEachRow',
          clickhouse_settings: {
            ...settingsFor(limits, { ...options, marker }),
            // The server stops a SELECT whose HTTP client went away; KILL above is the backstop.
            cancel_http_readonly_queries_on_client_close: 1,
          },
          abort_signal: signal,
        });
        return await result.json<T>();
      } catch (err) {
        if (signal?.aborted) throw new QueryCancelledError({ cause: err });
        throw err;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },
    async insert(table, rows, options) {
      if (rows.length === 0) return;
      // The client encodes each row as it reads the stream: the loop turns between slices.
      const { columns, values } = await rowArraysInSlices(rows);
      await client.insert({
        table: assertIdentifier('table', table),
        values: Readable.from(values),
        columns: columns as [string, ...string[]],
        format: 'JSONCompactEachRow',
        clickhouse_settings: serverInsertSettings(limits, options?.deduplicationToken),
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

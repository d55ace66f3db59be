import pg from 'pg';
import { INT8_OID, parseInt8 } from './int8';
import type { Postgres, Queryable } from './types';

function typeParser(oid: number, format?: string): (value: string) => unknown {
  if (oid === INT8_OID && format !== 'binary') return parseInt8;
  return pg.types.getTypeParser(oid, 'text');
}

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(text: string, params?: unknown[]) {
      const result = await client.query(text, params ?? []);
      return { rows: result.rows as T[] };
    },
    async exec(sql: string) {
      // Without parameters pg uses the simple query protocol, which accepts several statements.
      await client.query(sql);
    },
  };
}

/** PostgreSQL server through a `pg` connection pool. */
export function createPgPostgres(url: string, maxConnections = 10): Postgres {
  const pool = new pg.Pool({
    connectionString: url,
    max: maxConnections,
    types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const base = wrap(pool);
  return {
    kind: 'pg',
    ...base,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const value = await fn(wrap(client));
        await client.query('COMMIT');
        return value;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true; // the connection itself failed: do not hand it back to the pool
        }
        throw err;
      } finally {
        client.release(broken);
      }
    },
    listen: (channel, onNotify) => listenOn(url, channel, onNotify),
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
}

const RELISTEN_MS = 1000;

/**
 * A dedicated connection for LISTEN (a pooled one could be handed to someone else). When it fails
 * it is re-established after a pause, and `onNotify(null)` says notifications may have been missed.
 */
async function listenOn(
  url: string,
  channel: string,
  onNotify: (payload: string | null) => void,
): Promise<() => Promise<void>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
  let stopped = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (first: boolean): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel) onNotify(n.payload ?? '');
    });
    c.on('error', () => retry(c));
    c.on('end', () => retry(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
    } catch (err) {
      await c.end().catch(() => {});
      if (first) throw err;
      retry(c);
      return;
    }
    client = c;
    if (!first) onNotify(null);
  };
  const retry = (c: pg.Client) => {
    if (stopped || client !== c || timer) return;
    client = undefined;
    void c.end().catch(() => {});
    timer = setTimeout(() => {
      timer = undefined;
      if (!stopped) void connect(false);
    }, RELISTEN_MS);
    timer.unref();
  };
  await connect(true);
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await client?.end().catch(() => {});
  };
}

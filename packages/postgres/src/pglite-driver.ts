import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { INT8_OID, parseInt8 } from './int8';
import type { Postgres, Queryable } from './types';

function wrap(target: PGlite | Transaction): Queryable {
  return {
    async query<T>(text: string, params?: unknown[]) {
      const result = await target.query<T>(text, params ?? []);
      return { rows: result.rows };
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  };
}

/**
 * Embedded PostgreSQL (PGlite, WASM). It has a single connection: a transaction holds it
 * exclusively, so concurrent callers queue behind one another instead of interleaving.
 */
export async function createPglitePostgres(dataDir: string): Promise<Postgres> {
  const inMemory = dataDir === ':memory:';
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  const options = { parsers: { [INT8_OID]: parseInt8 } };
  const db = inMemory ? await PGlite.create(options) : await PGlite.create(dataDir, options);
  return {
    kind: 'pglite',
    ...wrap(db),
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    // One in-process database: notifications cannot be lost between LISTEN and NOTIFY.
    async listen(channel, onNotify) {
      const stop = await db.listen(channel, (payload) => onNotify(payload));
      return async () => {
        if (!db.closed) await stop();
      };
    },
    async ping() {
      if (db.closed) throw new Error('PGlite database is closed');
      await db.query('SELECT 1');
    },
    async close() {
      if (!db.closed) await db.close();
    },
  };
}

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
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

// Memory (docs/decisions.md, "Memory"): PGlite reserves its shared buffers inside the
// WASM heap, 128 MB by default; the identity store's working set (tokens, the audit tail) needs a
// fraction of that. And creating a new cluster (initdb) allocates about 500 MB of transient WASM
// and file-system buffers, which would set the serving process's peak: it runs in a child process.
const CONFIG = ['shared_buffers=16MB'];

const execFileAsync = promisify(execFile);

/** Creates the cluster of a new data dir in a short-lived child process. */
async function initializeInChild(dataDir: string): Promise<void> {
  const pglite = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  const script =
    `const { PGlite } = await import(${JSON.stringify(pglite)});` +
    `const db = await PGlite.create(${JSON.stringify(dataDir)}, { postgresqlconf: ${JSON.stringify(CONFIG)} });` +
    'await db.close();';
  await execFileAsync(process.execPath, ['--input-type=module', '-e', script], { timeout: 120_000 });
}

/**
 * Embedded PostgreSQL (PGlite, WASM). It has a single connection: a transaction holds it
 * exclusively, so concurrent callers queue behind one another instead of interleaving.
 */
export async function createPglitePostgres(dataDir: string): Promise<Postgres> {
  const inMemory = dataDir === ':memory:';
  if (!inMemory) {
    await mkdir(dataDir, { recursive: true });
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await initializeInChild(dataDir);
  }
  const db = inMemory ? await PGlite.create(PGLITE_OPTIONS) : await PGlite.create(dataDir, PGLITE_OPTIONS);
  return pglitePostgres(db);
}

/** What every PGlite of the stack is opened with: int8 as numbers, the small shared buffers. */
export const PGLITE_OPTIONS = { parsers: { [INT8_OID]: parseInt8 }, postgresqlconf: CONFIG };

/** An open PGlite database as the one Postgres interface. */
export function pglitePostgres(db: PGlite): Postgres {
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

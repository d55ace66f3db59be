import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_OPTIONS, pglitePostgres } from '../pglite-driver';
import type { Postgres } from '../types';

// Tests open many throwaway in-memory databases (a harness per file, some per test). Each one
// begins with initdb inside WASM, a few CPU-seconds on the 2-core test machine, and the cluster it
// makes is the same every time. So the first one made in a run is dumped to the temp dir (one file
// per PGlite build) and every later one starts from that dump: the same empty cluster, in about a
// fifth of the time. What the tests then do to it (migrations, queries) is unchanged.

/**
 * What an empty cluster depends on: the PGlite build (its resolved path names the package and
 * version) and how the driver creates and opens clusters (its source). A change to either makes a
 * new template instead of reusing one left in the temp dir by an earlier run.
 */
export function pgliteTemplateKey(): string {
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const driver = readFileSync(new URL('../pglite-driver.ts', import.meta.url));
  return createHash('sha256').update(pglite).update(driver).digest('hex').slice(0, 16);
}

/** The dump's file in the temp dir, one per template key. */
export function emptyClusterDumpFile(): string {
  return join(tmpdir(), `svc-pglite-memory-${pgliteTemplateKey()}.tar`);
}

/** The dump of a new empty cluster, made on first use (by whichever process gets there first). */
async function emptyClusterDump(): Promise<Blob> {
  const file = emptyClusterDumpFile();
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const db = await PGlite.create(PGLITE_OPTIONS);
  const dump = await db.dumpDataDir('none');
  await db.close();
  // Whole or not at all: a reader never sees a half-written dump.
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, file);
  return dump;
}

/** A new empty in-memory database, as `createPostgres({ dataDir: ':memory:' })` opens one. */
export async function memoryPostgres(): Promise<Postgres> {
  return pglitePostgres(await PGlite.create({ ...PGLITE_OPTIONS, loadDataDir: await emptyClusterDump() }));
}

import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgres } from '@svc/postgres';
import { pgliteTemplateKey } from '@svc/postgres/testing/memory';

// A new PGlite cluster (initdb, in WASM) costs about 10 CPU-seconds and a 500 MB peak, and a first
// start of the stack makes two (identity's, recall's): on the 2-core test machine that was a large
// share of every spawned stack's start, once per e2e file. The cluster initdb makes is the same
// every time, so it is made once per PGlite build, by the store's own code (createPostgres on an
// empty dir, then closed: exactly what a first start leaves behind before its migrations), kept
// in the temp dir, and copied into a new data dir where each service keeps its database. The
// services then start as on any data dir that holds an empty cluster: they migrate it and seed.

/** Where identity and recall keep their embedded databases in a data dir (their config.ts). */
const PGLITE_DIRS = ['identity', join('recall', 'db')];

/** One template per PGlite build and driver (pgliteTemplateKey). */
function templateDir(): string {
  return join(tmpdir(), `svc-pglite-template-${pgliteTemplateKey()}`);
}

/** The template cluster, made on first use (by whichever process gets there first). */
async function ensureTemplate(): Promise<string> {
  const dir = templateDir();
  if (existsSync(join(dir, 'PG_VERSION'))) return dir;
  const building = mkdtempSync(`${dir}-building-`);
  try {
    const cluster = join(building, 'cluster');
    await (await createPostgres({ dataDir: cluster })).close();
    // Whole or not at all: a reader never sees a half-copied cluster. Another process may have
    // renamed its own first; then that one is used and this one discarded.
    try {
      renameSync(cluster, dir);
    } catch (err) {
      if (!existsSync(join(dir, 'PG_VERSION'))) throw err;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return dir;
}

/** Puts an empty cluster (a copy of the template) where each service of the stack keeps its database. */
export async function seedEmptyClusters(dataDir: string): Promise<void> {
  const template = await ensureTemplate();
  for (const dir of PGLITE_DIRS) {
    const target = join(dataDir, dir);
    // The parent as the service makes it (recall's dir holds its master key: owner only).
    mkdirSync(join(target, '..'), { recursive: true, mode: 0o700 });
    cpSync(template, target, { recursive: true });
  }
}

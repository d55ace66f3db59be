import { createPgPostgres } from './pg-driver';
import { createPglitePostgres } from './pglite-driver';
import type { Postgres, PostgresOptions } from './types';

/** One Postgres interface: a server URL goes through `pg`, a data dir through embedded PGlite. */
export async function createPostgres(options: PostgresOptions): Promise<Postgres> {
  if ('url' in options) {
    const db = createPgPostgres(options.url, options.maxConnections);
    try {
      await db.ping(); // fail fast at start with a clear cause instead of at the first request
    } catch (err) {
      await db.close();
      throw err;
    }
    return db;
  }
  return createPglitePostgres(options.dataDir);
}

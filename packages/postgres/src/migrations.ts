import { createHash } from 'node:crypto';
import type { Postgres } from './types';

export interface Migration {
  /** Stable, ordered identifier, e.g. `0001_orgs`. Never renamed once released. */
  id: string;
  sql: string;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

// Any fixed number: every process migrating the same database takes this lock, so two
// services starting together apply each migration once instead of racing.
const MIGRATION_LOCK_KEY = 7_340_912;

const checksum = (sql: string) => createHash('sha256').update(sql).digest('hex');

function assertWellFormed(migrations: readonly Migration[]): void {
  const seen = new Set<string>();
  for (const m of migrations) {
    if (!/^[A-Za-z0-9_.-]+$/.test(m.id)) throw new MigrationError(`invalid migration id "${m.id}"`);
    if (seen.has(m.id)) throw new MigrationError(`duplicate migration id "${m.id}"`);
    seen.add(m.id);
  }
}

/**
 * Applies the migrations not yet recorded in `schema_migrations`, in the given order, each in
 * its own transaction together with its record. Safe to call at every start. A recorded
 * migration whose text has changed since is refused: released migrations are immutable.
 * Returns the ids applied by this call.
 */
export async function runMigrations(db: Postgres, migrations: readonly Migration[]): Promise<string[]> {
  assertWellFormed(migrations);
  await db.transaction(async (tx) => {
    // Under the lock too: concurrent CREATE TABLE IF NOT EXISTS can still collide in pg_type.
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id text PRIMARY KEY,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });
  const applied: string[] = [];
  for (const migration of migrations) {
    const ran = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const { rows } = await tx.query<{ checksum: string }>(
        'SELECT checksum FROM schema_migrations WHERE id = $1',
        [migration.id],
      );
      const recorded = rows[0];
      if (recorded) {
        if (recorded.checksum !== checksum(migration.sql)) {
          throw new MigrationError(`migration "${migration.id}" was changed after it was applied`);
        }
        return false;
      }
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (id, checksum) VALUES ($1, $2)', [
        migration.id,
        checksum(migration.sql),
      ]);
      return true;
    });
    if (ran) applied.push(migration.id);
  }
  return applied;
}

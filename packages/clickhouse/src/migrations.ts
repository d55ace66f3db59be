import type { ClickHouse } from './client';

export interface Migration {
  /** Positive, unique, applied in ascending order. Never renumber an applied migration. */
  version: number;
  name: string;
  /** One statement per entry (ClickHouse runs one statement per request). */
  statements: readonly string[];
}

const MIGRATIONS_TABLE = 'schema_migrations';

export interface MigrationReport {
  applied: number[];
  skipped: number[];
}

/**
 * Applies the migrations not yet recorded in `schema_migrations`, in version order, and records
 * each after its statements succeed. Safe to run at every start. Write statements idempotently
 * (`IF NOT EXISTS`): ClickHouse DDL is not transactional, so a crash between a statement and its
 * record re-runs the migration next time.
 */
export async function runMigrations(
  ch: ClickHouse,
  migrations: readonly Migration[],
): Promise<MigrationReport> {
  const ordered = checkedOrder(migrations);
  await ch.command(
    `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
       version UInt32,
       name String,
       applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
     ) ENGINE = ReplacingMergeTree ORDER BY version`,
  );
  const rows = await ch.query<{ version: number }>(`SELECT DISTINCT version FROM ${MIGRATIONS_TABLE}`);
  const done = new Set(rows.map((r) => Number(r.version)));
  const report: MigrationReport = { applied: [], skipped: [] };
  for (const migration of ordered) {
    if (done.has(migration.version)) {
      report.skipped.push(migration.version);
      continue;
    }
    for (const statement of migration.statements) await ch.command(statement);
    await ch.insert(MIGRATIONS_TABLE, [{ version: migration.version, name: migration.name }]);
    report.applied.push(migration.version);
  }
  return report;
}

function checkedOrder(migrations: readonly Migration[]): Migration[] {
  const seen = new Set<number>();
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version < 1) throw new Error(`migration ${m.name}: bad version`);
    if (seen.has(m.version)) throw new Error(`duplicate migration version ${m.version}`);
    seen.add(m.version);
  }
  return [...migrations].sort((a, b) => a.version - b.version);
}

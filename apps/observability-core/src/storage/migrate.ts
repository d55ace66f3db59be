import { type ClickHouse, runMigrations } from '@svc/clickhouse';
import { coreMigrations, DEFAULT_RETENTION, type Retention } from './migrations';
import { applyRetention } from './retention';

/** Creates or upgrades the core's tables and applies the retention; safe at every start. */
export async function migrateCore(ch: ClickHouse, retention: Retention = DEFAULT_RETENTION): Promise<void> {
  await runMigrations(ch, coreMigrations(retention));
  await applyRetention(ch, retention);
}

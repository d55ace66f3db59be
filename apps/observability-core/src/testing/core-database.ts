import { createHash } from 'node:crypto';
import { type ClickHouse, createTestClickHouseFrom } from '@svc/clickhouse';
import { migrateCore } from '../storage/migrate';
import { coreMigrations } from '../storage/migrations';

/**
 * The core's tables as migrations leave them, in a database made once per test process; named by
 * a hash of the migrations so a data dir left by an older process is never taken for it.
 */
const CORE_TEMPLATE = {
  name: `core_template_${createHash('sha256').update(JSON.stringify(coreMigrations())).digest('hex').slice(0, 16)}`,
  build: (ch: ClickHouse) => migrateCore(ch),
};

/**
 * A fresh chDB test database with the core's schema, copied from the template (the same tables
 * `migrateCore` makes, checked by core-database.test.ts) at a sixth of the CPU of migrating it.
 * Drop it with `dropTestClickHouse`. Tests of the migrations themselves call `migrateCore`.
 */
export function createCoreTestDatabase(name: string): Promise<ClickHouse> {
  return createTestClickHouseFrom(name, CORE_TEMPLATE);
}

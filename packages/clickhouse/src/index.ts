export { type ClickHouse, createClickHouse } from './client';
export { type Migration, type MigrationReport, runMigrations } from './migrations';
export type {
  ClickHouseOptions,
  EmbeddedOptions,
  QueryLimits,
  QueryOptions,
  ServerOptions,
} from './options';
export { createTestClickHouse, dropTestClickHouse } from './test-database';

export { type ClickHouse, compactRows, createClickHouse, DEFAULT_EMBEDDED_SESSIONS } from './client';
export { EmbeddedEngineMissingError, exceededBudget, QueryCancelledError, refusedByEngine } from './errors';
export { type Migration, type MigrationReport, runMigrations } from './migrations';
export type {
  ClickHouseOptions,
  EmbeddedOptions,
  QueryLimits,
  QueryOptions,
  ServerOptions,
} from './options';
export { renderQueryParams } from './render-params';
export {
  createTestClickHouse,
  createTestClickHouseFrom,
  dropTestClickHouse,
  type TestTemplate,
} from './test-database';

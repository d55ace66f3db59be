export { createPostgres } from './create-postgres';
export { type Migration, MigrationError, runMigrations } from './migrations';
export type { Postgres, PostgresOptions, Queryable } from './types';

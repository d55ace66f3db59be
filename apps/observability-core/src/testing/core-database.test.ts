import { type ClickHouse, createTestClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { migrateCore } from '../storage/migrate';
import { createCoreTestDatabase } from './core-database';

// The tests' databases are copies of a template: they must be what migrating a database makes,
// or every test on them would check a schema the service never runs on.

let copied: ClickHouse;
let migrated: ClickHouse;

beforeAll(async () => {
  copied = await createCoreTestDatabase('core_database_copy');
  migrated = await createTestClickHouse('core_database_migrated');
  await migrateCore(migrated);
});

afterAll(async () => {
  await dropTestClickHouse(copied);
  await dropTestClickHouse(migrated);
});

/** Every table's full definition, its database's name taken out. */
const schemaOf = (ch: ClickHouse) =>
  ch.query<{ name: string; statement: string }>(
    `SELECT name, replaceAll(create_table_query, currentDatabase(), '<db>') AS statement
     FROM system.tables WHERE database = currentDatabase() ORDER BY name`,
  );

const versionsOf = (ch: ClickHouse) =>
  ch.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');

it('copies every table of a migrated database: columns, indexes, projections, TTL and settings', async () => {
  const expected = await schemaOf(migrated);
  expect(expected.length).toBeGreaterThan(10);
  expect(await schemaOf(copied)).toEqual(expected);
});

it('records the same migrations, so migrating a copy changes nothing', async () => {
  expect(await versionsOf(copied)).toEqual(await versionsOf(migrated));
  const before = await schemaOf(copied);
  await migrateCore(copied);
  expect(await schemaOf(copied)).toEqual(before);
});

it('gives each caller a database of its own, with no rows', async () => {
  const other = await createCoreTestDatabase('core_database_other');
  try {
    expect(other.database).not.toBe(copied.database);
    // Now: a row past the table's TTL may be dropped as it is written.
    const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
    await copied.insert('feedback', [{ project_id: 'p', timestamp: now, message: 'x' }]);
    const count = async (ch: ClickHouse) =>
      (await ch.query<{ n: string }>('SELECT count() AS n FROM feedback'))[0]?.n;
    expect(Number(await count(copied))).toBe(1);
    expect(Number(await count(other))).toBe(0);
  } finally {
    await dropTestClickHouse(other);
  }
});

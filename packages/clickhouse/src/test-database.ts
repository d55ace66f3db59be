import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClickHouse, createClickHouse } from './client';

/** The one embedded chDB data dir of a test process (see client.ts: one path per process). */
const testDataDir = () => join(tmpdir(), `svc-chdb-test-${process.pid}`);

/**
 * For tests: one embedded chDB per test process (one data dir, see client.ts), a fresh database
 * per caller. Drop it with `dropTestClickHouse` when done.
 */
export async function createTestClickHouse(prefix: string): Promise<ClickHouse> {
  const safe = prefix.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 40);
  const database = `t_${safe}_${randomBytes(4).toString('hex')}`;
  return createClickHouse({ path: testDataDir(), database });
}

export async function dropTestClickHouse(ch: ClickHouse): Promise<void> {
  try {
    await ch.command(`DROP DATABASE IF EXISTS ${ch.database}`);
  } finally {
    await ch.close();
  }
}

export interface TestTemplate {
  /**
   * The template database's name: change it whenever `build` would build something else (e.g.
   * carry a hash of the migrations), since a data dir left by an earlier process may hold it.
   */
  name: string;
  /** Brings an empty database to the template's state. */
  build(ch: ClickHouse): Promise<void>;
}

interface TemplateTable {
  name: string;
  statement: string;
  rows: string | number | null;
}

/** The template's tables, read through `ch` (any database of the engine). */
const tablesOf = (ch: ClickHouse, template: string) =>
  ch.query<TemplateTable>(
    `SELECT name, create_table_query AS statement, total_rows AS rows
     FROM system.tables WHERE database = {template:String} ORDER BY name`,
    { template },
  );

/**
 * Builds the template under a name of its own and renames it when done, so a template found by
 * its name is always whole (a process killed while building leaves only the temporary one).
 */
async function buildTemplate(ch: ClickHouse, template: TestTemplate): Promise<TemplateTable[]> {
  const building = await createTestClickHouse(`${template.name}_building`.slice(0, 40));
  try {
    await template.build(building);
  } catch (err) {
    await dropTestClickHouse(building);
    throw err;
  }
  await building.close();
  try {
    await ch.command(`RENAME DATABASE ${building.database} TO ${template.name}`);
  } catch (err) {
    // Two callers at once (one test file's harnesses together) both build it: one rename wins.
    await ch.command(`DROP DATABASE IF EXISTS ${building.database}`);
    const built = await tablesOf(ch, template.name);
    if (built.length === 0) throw err;
    return built;
  }
  return tablesOf(ch, template.name);
}

/**
 * A fresh test database (as `createTestClickHouse`) holding a copy of the template's tables and
 * rows. The template database is built once per process and engine by `template.build`; each copy
 * then takes one CREATE per table from the template's own `create_table_query` (columns, indexes,
 * projections, TTL and settings as the template has them) instead of replaying every migration:
 * the core's 55 DDL statements cost ~1.2 CPU-s and ~2 s per database, its copy ~0.2 CPU-s and
 * ~0.3 s. Tables only: a view would need its dependencies created first.
 */
export async function createTestClickHouseFrom(prefix: string, template: TestTemplate): Promise<ClickHouse> {
  const ch = await createTestClickHouse(prefix);
  try {
    const found = await tablesOf(ch, template.name);
    const tables = found.length > 0 ? found : await buildTemplate(ch, template);
    const from = `CREATE TABLE ${template.name}.`;
    for (const table of tables) {
      if (!table.statement.startsWith(from))
        throw new Error(
          `template ${template.name}: ${table.name} is not a plain table (${table.statement.slice(0, 60)})`,
        );
      await ch.command(`CREATE TABLE ${ch.database}.${table.statement.slice(from.length)}`);
      if (Number(table.rows ?? 1) > 0)
        await ch.command(`INSERT INTO ${table.name} SELECT * FROM ${template.name}.${table.name}`);
    }
  } catch (err) {
    await dropTestClickHouse(ch);
    throw err;
  }
  return ch;
}

import { randomBytes } from 'node:crypto';
import type { ClickHouse } from './client';
import {
  createTestClickHouse,
  createTestClickHouseFrom,
  dropTestClickHouse,
  type TestTemplate,
} from './test-database';

// Test databases copied from a template: each a database of its own with the template's tables and
// rows, the template built whole before anyone copies it.

const opened: ClickHouse[] = [];
afterAll(async () => {
  for (const ch of opened) await dropTestClickHouse(ch);
});

function template(): TestTemplate & { builds: number } {
  const t = {
    name: `tpl_${randomBytes(4).toString('hex')}`,
    builds: 0,
    async build(ch: ClickHouse) {
      t.builds++;
      await ch.command(
        `CREATE TABLE kv (k String, v UInt32) ENGINE = MergeTree ORDER BY k
         SETTINGS non_replicated_deduplication_window = 7`,
      );
      await ch.insert('kv', [{ k: 'seed', v: 1 }]);
    },
  };
  return t;
}

const rowsOf = (ch: ClickHouse) => ch.query<{ k: string; v: number }>('SELECT k, v FROM kv ORDER BY k');
const definitionOf = async (ch: ClickHouse) =>
  (
    await ch.query<{ q: string }>(
      `SELECT replaceAll(create_table_query, currentDatabase(), '<db>') AS q
       FROM system.tables WHERE database = currentDatabase() AND name = 'kv'`,
    )
  )[0]?.q;

it("copies the template's tables with their settings and rows, each copy a database of its own", async () => {
  const t = template();
  const a = await createTestClickHouseFrom('copy_a', t);
  const b = await createTestClickHouseFrom('copy_b', t);
  opened.push(a, b);
  expect(t.builds).toBe(1);
  expect(await definitionOf(a)).toContain('non_replicated_deduplication_window = 7');
  expect(await definitionOf(b)).toBe(await definitionOf(a));
  await a.insert('kv', [{ k: 'only_a', v: 2 }]);
  expect(await rowsOf(a)).toEqual([
    { k: 'only_a', v: 2 },
    { k: 'seed', v: 1 },
  ]);
  expect(await rowsOf(b)).toEqual([{ k: 'seed', v: 1 }]);
});

it('makes copies for callers at once, and leaves no half-built template behind', async () => {
  const t = template();
  const copies = await Promise.all(
    ['at_once_a', 'at_once_b', 'at_once_c'].map((p) => createTestClickHouseFrom(p, t)),
  );
  opened.push(...copies);
  for (const ch of copies) expect(await rowsOf(ch)).toEqual([{ k: 'seed', v: 1 }]);
  const probe = await createTestClickHouse('probe');
  opened.push(probe);
  const building = await probe.query<{ name: string }>(
    'SELECT name FROM system.databases WHERE name LIKE {pattern:String}',
    { pattern: `%${t.name}_building%` },
  );
  expect(building).toEqual([]);
});

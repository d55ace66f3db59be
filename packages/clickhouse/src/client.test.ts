import { type ClickHouse, createTestClickHouse, dropTestClickHouse } from './index';

describe('createClickHouse (embedded chDB)', () => {
  let a: ClickHouse;
  let b: ClickHouse;

  beforeAll(async () => {
    a = await createTestClickHouse('client_a');
    b = await createTestClickHouse('client_b');
    for (const ch of [a, b]) {
      await ch.command(
        'CREATE TABLE IF NOT EXISTS items (id UInt64, name String) ENGINE = MergeTree ORDER BY id',
      );
    }
  });

  afterAll(async () => {
    await dropTestClickHouse(a);
    await dropTestClickHouse(b);
  });

  it('isolates clients by database on one shared data dir', async () => {
    await a.insert('items', [{ id: 1, name: 'only in a' }]);
    await b.insert('items', [
      { id: 2, name: 'in b' },
      { id: 3, name: 'also in b' },
    ]);
    const inA = await a.query<{ name: string }>('SELECT name FROM items ORDER BY id');
    const inB = await b.query<{ name: string }>('SELECT name FROM items ORDER BY id');
    expect(inA.map((r) => r.name)).toEqual(['only in a']);
    expect(inB.map((r) => r.name)).toEqual(['in b', 'also in b']);
    const [current] = await a.query<{ db: string }>('SELECT currentDatabase() AS db');
    expect(current?.db).toBe(a.database);
  });

  it('binds parameters as values, so quotes and wildcards stay data', async () => {
    const tricky = "it's 50% off_\\ ') OR 1=1 --";
    await a.insert('items', [{ id: 10, name: tricky }]);
    const rows = await a.query<{ id: string }>('SELECT id FROM items WHERE name = {name:String}', {
      name: tricky,
    });
    expect(rows).toEqual([{ id: '10' }]);
  });

  it('quotes 64-bit integers as strings', async () => {
    const [row] = await a.query<{ big: string; small: number }>(
      'SELECT toUInt64(18446744073709551615) AS big, toUInt8(7) AS small',
    );
    expect(row).toEqual({ big: '18446744073709551615', small: 7 });
  });

  it('enforces the per-query memory limit', async () => {
    await expect(
      a.query('SELECT groupArray(number) FROM numbers(5000000)', {}, { maxMemoryUsageBytes: 1_000_000 }),
    ).rejects.toThrow(/memory/i);
  });

  it('pings', async () => {
    expect(await a.ping()).toBe(true);
  });

  it('refuses table names that are not identifiers', async () => {
    await expect(a.insert('items; DROP TABLE items', [{ id: 1 }])).rejects.toThrow(
      /invalid ClickHouse table/,
    );
  });
});

import { type ClickHouse, createTestClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { coalesceInserts } from './insert-coalescer';

// Concurrent inserts into one table go in as one; every caller learns how its own rows fared.

let ch: ClickHouse;
let inserts: { table: string; rows: number; token: string | undefined }[];
/** The real engine, counting the inserts it is asked for; an insert with a `lost` row fails. */
const counting = (): ClickHouse => ({
  ...ch,
  async insert(table, rows, options) {
    inserts.push({ table, rows: rows.length, token: options?.deduplicationToken });
    if (rows.some((row) => String(row.tag).startsWith('lost'))) throw new Error('disk full');
    return ch.insert(table, rows, options);
  },
});

beforeAll(async () => {
  ch = await createTestClickHouse('core_insert_coalescer');
  for (const table of ['a', 'b'])
    await ch.command(
      `CREATE TABLE ${table} (id UInt32, tag String) ENGINE = MergeTree ORDER BY id
       SETTINGS non_replicated_deduplication_window = 100`,
    );
});
afterAll(async () => {
  await dropTestClickHouse(ch);
});
beforeEach(() => {
  inserts = [];
});

const rows = (tag: string, n: number) => Array.from({ length: n }, (_, id) => ({ id, tag }));
const count = async (table: string, tag: string) =>
  Number(
    (await ch.query<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE tag = {tag:String}`, { tag }))[0]!
      .n,
  );

it('inserts a lone request at once with its own token, so the engine drops its retry after a restart', async () => {
  await coalesceInserts(counting()).insert('a', rows('lone', 3), { deduplicationToken: 'tok-lone' });
  // A new process: nothing remembered here, the table itself knows the token.
  await coalesceInserts(counting()).insert('a', rows('lone', 3), { deduplicationToken: 'tok-lone' });
  expect(inserts).toEqual([
    { table: 'a', rows: 3, token: 'tok-lone' },
    { table: 'a', rows: 3, token: 'tok-lone' },
  ]);
  expect(await count('a', 'lone')).toBe(3);
});

it('groups the requests that arrive while an insert runs, per table, up to maxRows', async () => {
  const inserter = coalesceInserts(counting(), { maxRows: 25 });
  await Promise.all([
    ...Array.from({ length: 6 }, (_, i) =>
      inserter.insert('a', rows(`g${i}`, 10), { deduplicationToken: `g${i}` }),
    ),
    inserter.insert('b', rows('other', 4)),
  ]);
  // The first of each table alone, then groups of at most 25 rows.
  expect(inserts.map((i) => [i.table, i.rows])).toEqual([
    ['a', 10],
    ['b', 4],
    ['a', 20],
    ['a', 20],
    ['a', 10],
  ]);
  expect(inserts[2]!.token).toMatch(/^group:[0-9a-f]{64}$/);
  for (let i = 0; i < 6; i++) expect(await count('a', `g${i}`)).toBe(10);
  expect(await count('b', 'other')).toBe(4);
});

it('drops a repeat of a token that went in as part of a group (the engine only saw the group)', async () => {
  const inserter = coalesceInserts(counting());
  await Promise.all([
    inserter.insert('b', rows('first', 1)),
    inserter.insert('b', rows('member', 2), { deduplicationToken: 'member-1' }),
    inserter.insert('b', rows('neighbour', 2), { deduplicationToken: 'neighbour-1' }),
  ]);
  expect(inserts.map((i) => i.rows)).toEqual([1, 4]);
  // A retry of one member alone: its token never reached the engine, the coalescer knows it.
  await inserter.insert('b', rows('member', 2), { deduplicationToken: 'member-1' });
  expect(inserts.map((i) => i.rows)).toEqual([1, 4]);
  expect(await count('b', 'member')).toBe(2);
});

it('fails every request of a failed group, and only those', async () => {
  const inserter = coalesceInserts(counting());
  const first = inserter.insert('a', rows('ok-first', 2));
  // Queued behind the first, so grouped: one lost row fails the group's insert, and so both.
  const grouped = [inserter.insert('a', rows('lost-1', 2)), inserter.insert('a', rows('fine-2', 2))];
  await first;
  const outcomes = await Promise.allSettled(grouped);
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  expect(await count('a', 'ok-first')).toBe(2);
  await inserter.insert('a', rows('after', 2));
  expect(await count('a', 'after')).toBe(2);
  expect(await count('a', 'fine-2')).toBe(0);
});

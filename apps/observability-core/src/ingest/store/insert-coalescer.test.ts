import { type ClickHouse, dropTestClickHouse, refusedByEngine } from '@svc/clickhouse';
import { createCoreTestDatabase } from '../../testing/core-database';
import { coalesceInserts, MAX_ISOLATION_INSERTS } from './insert-coalescer';

// Concurrent inserts into one table go in as one; every caller learns how its own rows fared.

let ch: ClickHouse;
let inserts: { table: string; rows: number; token: string | undefined }[];
/**
 * The real engine, counting the inserts it is asked for; an insert with a `lost` row fails as if
 * the storage could not be reached (no answer from the engine).
 */
const counting = (): ClickHouse => ({
  ...ch,
  async insert(table, rows, options) {
    inserts.push({ table, rows: rows.length, token: options?.deduplicationToken });
    if (rows.some((row) => String(row.tag).startsWith('lost')))
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
    return ch.insert(table, rows, options);
  },
});

beforeAll(async () => {
  // The ingest tables themselves, for the engine's own refusals.
  ch = await createCoreTestDatabase('core_insert_coalescer');
  for (const table of ['a', 'b'])
    await ch.command(
      `CREATE TABLE ${table} (id UInt32, tag String) ENGINE = MergeTree ORDER BY id
       SETTINGS non_replicated_deduplication_window = 100`,
    );
  // A table whose every insert the engine refuses (as a full disk or a broken table would).
  await ch.command(
    `CREATE TABLE refusing (project_id String, id UInt32, CONSTRAINT never CHECK id > 1000000)
     ENGINE = MergeTree ORDER BY id`,
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

it('fails a whole group at once when storage cannot be reached, and only that group', async () => {
  const inserter = coalesceInserts(counting());
  const first = inserter.insert('a', rows('ok-first', 2));
  // Queued behind the first, so grouped: the group's insert fails, and whether it was stored is
  // unknown. Inserting parts of it again could store rows twice: both fail, after one insert.
  const grouped = [inserter.insert('a', rows('lost-1', 2)), inserter.insert('a', rows('fine-2', 2))];
  await first;
  const outcomes = await Promise.allSettled(grouped);
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  expect(inserts.map((i) => i.rows)).toEqual([2, 4]);
  expect(await count('a', 'ok-first')).toBe(2);
  await inserter.insert('a', rows('after', 2));
  expect(await count('a', 'after')).toBe(2);
  expect(await count('a', 'fine-2')).toBe(0);
});

describe("the engine's refusal of one request's rows", () => {
  const NOW = Math.floor(Date.now() / 60_000) * 60_000;
  /** A request's log lines tagged `tag`; a bad one carries a lone surrogate, which the engine refuses. */
  const lines = (project: string, tag: string, bad = false) =>
    [0, 1, 2].map((i) => ({
      project_id: project,
      timestamp: NOW - i,
      level: 'INFO',
      message: bad && i === 1 ? `${tag} x\ud800` : `${tag} line ${i}`,
      source: 'backend',
    }));
  const storedLines = async (tag: string) =>
    Number(
      (
        await ch.query<{ n: string }>(
          'SELECT count() AS n FROM logs WHERE startsWith(message, {tag:String})',
          {
            tag: `${tag} `,
          },
        )
      )[0]!.n,
    );

  it("fails only the requests whose own rows it refuses; every other project's go in", async () => {
    // Two projects send bad requests (one a good one too) among 7 other projects' requests.
    const requests = [
      ...['b', 'c', 'd', 'e', 'f', 'g', 'h'].flatMap((p) => [
        { project: p, tag: `${p}-0`, bad: false },
        { project: p, tag: `${p}-1`, bad: false },
      ]),
      { project: 'a', tag: 'a-bad-0', bad: true },
      { project: 'a', tag: 'a-bad-1', bad: true },
      { project: 'a', tag: 'a-good', bad: false },
      { project: 'z', tag: 'z-bad', bad: true },
    ].sort((x, y) => x.tag.length - y.tag.length || x.tag.localeCompare(y.tag));
    const inserter = coalesceInserts(counting());
    const first = inserter.insert('logs', lines('c', 'first'));
    // Queued behind the first: one group, which the engine refuses for the bad requests' rows.
    const outcomes = await Promise.allSettled(
      requests.map((r) => inserter.insert('logs', lines(r.project, r.tag, r.bad))),
    );
    await first;
    expect(inserts[1]).toMatchObject({ table: 'logs', rows: 3 * requests.length });

    for (const [i, request] of requests.entries()) {
      const outcome = outcomes[i]!;
      expect([request.tag, outcome.status]).toEqual([request.tag, request.bad ? 'rejected' : 'fulfilled']);
      if (outcome.status === 'rejected') expect(refusedByEngine(outcome.reason)).toBe(true);
      expect([request.tag, await storedLines(request.tag)]).toEqual([request.tag, request.bad ? 0 : 3]);
    }
    // Halves, by project first: well within the bound for a failed group.
    expect(inserts.length - 2).toBeLessThanOrEqual(MAX_ISOLATION_INSERTS);
  });

  it('spends at most MAX_ISOLATION_INSERTS more inserts on a group when the engine refuses everything', async () => {
    const inserter = coalesceInserts(counting());
    const first = inserter.insert('refusing', [{ project_id: 'p0', id: 0 }]);
    // 40 projects' requests: finding each alone would take 78 inserts more.
    const grouped = Array.from({ length: 40 }, (_, i) =>
      inserter.insert('refusing', [{ project_id: `p${i + 1}`, id: i + 1 }]),
    );
    const outcomes = await Promise.allSettled([first, ...grouped]);
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(inserts.map((i) => i.rows).slice(0, 2)).toEqual([1, 40]);
    expect(inserts).toHaveLength(2 + MAX_ISOLATION_INSERTS);
  });
});

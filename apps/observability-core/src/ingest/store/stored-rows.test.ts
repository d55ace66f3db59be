import { type ClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { createCoreTestDatabase } from '../../testing/core-database';
import { RECORD_TYPES } from '../schemas';
import {
  createStoredRowsFinder,
  findStored,
  LOCATORS,
  notYetStored,
  type PendingRows,
  ROW_TOKEN_COLUMN,
  rowTokenOf,
  timeRanges,
  weightOf,
} from './stored-rows';

// A retried request finds its own stored rows through the tables' primary keys and its row token.

const DAY = 86_400_000;
const NOW = Math.floor(Date.now() / DAY) * DAY + 12 * 3_600_000;

let ch: ClickHouse;
beforeAll(async () => {
  ch = await createCoreTestDatabase('core_stored_rows');
});
afterAll(async () => {
  await dropTestClickHouse(ch);
});

it("finds each table's rows by its key: a time column it is partitioned and sorted by, or an id", async () => {
  const tables = await ch.query<{ name: string; partition_key: string; sorting_key: string }>(
    'SELECT name, partition_key, sorting_key FROM system.tables WHERE database = currentDatabase()',
  );
  const columns = await ch.query<{ table: string; type: string }>(
    `SELECT table, type FROM system.columns WHERE database = currentDatabase() AND name = '${ROW_TOKEN_COLUMN}'`,
  );
  for (const type of RECORD_TYPES) {
    const table = tables.find((t) => t.name === type)!;
    const locator = LOCATORS[type];
    const sortedBy = table.sorting_key.split(', ');
    expect([type, sortedBy[0]]).toEqual([type, 'project_id']);
    if ('time' in locator) {
      // A part holds one partition: per time range the engine stores a request's rows whole or not.
      expect([type, table.partition_key]).toEqual([type, expect.stringContaining(`(${locator.time})`)]);
      expect([type, sortedBy]).toEqual([type, expect.arrayContaining([locator.time])]);
    } else {
      expect([type, table.partition_key, sortedBy[1]]).toEqual([type, '', locator.key]);
    }
    expect(columns.find((c) => c.table === type)).toEqual({ table: type, type: 'UInt64' });
  }
});

const span = (project: string, start: number, operation: string, token: number) => ({
  project_id: project,
  start_time: start,
  trace_id: 'a'.repeat(32),
  span_id: 'b'.repeat(16),
  kind: 'server',
  status: 'ok',
  operation,
  duration_ms: 1,
  [ROW_TOKEN_COLUMN]: token,
});

it("finds the partitions an earlier try stored, and leaves the others' rows to insert", async () => {
  const token = rowTokenOf('ingest:request-1:spans');
  // Spans of one request over two days (two partitions of the spans table).
  const rows = [
    span('p', NOW - DAY, 'yesterday 1', token),
    span('p', NOW - DAY + 5, 'yesterday 2', token),
    span('p', NOW, 'today 1', token),
    span('p', NOW + 5, 'today 2', token),
  ];
  const pending: PendingRows = { table: 'spans', rowToken: token, rows };
  expect(await findStored(ch, [{ projectId: 'p', pending: [pending] }])).toEqual([new Map()]);

  // An earlier try got yesterday's part in; other requests' rows sit in the same range, and the
  // same token's in another project.
  await ch.insert('spans', rows.slice(0, 2));
  await ch.insert('spans', [span('p', NOW - DAY + 2, 'other request', rowTokenOf('other'))]);
  await ch.insert('spans', [span('q', NOW, 'other project', token)]);
  const [stored] = await findStored(ch, [{ projectId: 'p', pending: [pending] }]);
  expect(stored).toEqual(new Map([['spans', [{ lo: NOW - DAY, hi: NOW - DAY + 5 }]]]));
  expect(notYetStored(pending, stored!).map((r) => r.operation)).toEqual(['today 1', 'today 2']);
});

it('finds sessions and experiments by their ids, all of a request or none', async () => {
  const token = rowTokenOf('ingest:request-2:sessions');
  const sessions = ['s1', 's2'].map((id) => ({
    project_id: 'p',
    session_id: id,
    started_at: NOW,
    ingested_at: NOW,
    [ROW_TOKEN_COLUMN]: token,
  }));
  const experiment = { project_id: 'p', experiment_key: 'e1', updated_at: NOW, [ROW_TOKEN_COLUMN]: token };
  const pending: PendingRows[] = [
    { table: 'sessions', rowToken: token, rows: sessions },
    { table: 'experiments', rowToken: token, rows: [experiment] },
  ];
  await ch.insert('sessions', sessions);
  const [stored] = await findStored(ch, [{ projectId: 'p', pending }]);
  expect([...stored!.keys()]).toEqual(['sessions']);
  expect(notYetStored(pending[0]!, stored!)).toEqual([]);
  expect(notYetStored(pending[1]!, stored!)).toEqual([experiment]);
});

it('answers the lookups that come while one runs with one query, each with its own rows', async () => {
  let queries = 0;
  const find = createStoredRowsFinder({
    ...ch,
    query: (sql, params, options) => {
      queries++;
      return ch.query(sql, params, options);
    },
  });
  // Three requests, two of them with the same token in different projects; each stored logs.
  const lookups = ['p1', 'p2', 'p3'].map((project, i) => {
    const rowToken = rowTokenOf(i === 2 ? 'ingest:third:logs' : 'ingest:same:logs');
    const rows = [0, 1].map((j) => ({
      project_id: project,
      timestamp: NOW - 3 * DAY - j,
      level: 'INFO',
      message: `${project} ${j}`,
      source: 'backend',
      [ROW_TOKEN_COLUMN]: rowToken,
    }));
    return { projectId: project, pending: [{ table: 'logs' as const, rowToken, rows }] };
  });
  // Stored: p1's logs, and p3's; not p2's.
  await ch.insert('logs', [...lookups[0]!.pending[0]!.rows, ...lookups[2]!.pending[0]!.rows]);
  const answers = await Promise.all(lookups.map(find));
  const stored = [{ lo: NOW - 3 * DAY - 1, hi: NOW - 3 * DAY }];
  expect(answers).toEqual([new Map([['logs', stored]]), new Map(), new Map([['logs', stored]])]);
  // The first went alone; the two that came meanwhile, together.
  expect(queries).toBe(2);
});

it('names at most 16 ids of a request in a lookup, so it stays small whatever the batch', () => {
  const rows = Array.from({ length: 5000 }, (_, i) => ({ session_id: `s${i}`, started_at: NOW }));
  const spans = Array.from({ length: 100 }, (_, i) => ({ start_time: NOW - i * DAY }));
  expect(weightOf({ projectId: 'p', pending: [{ table: 'sessions', rowToken: 1, rows }] })).toBe(16);
  expect(weightOf({ projectId: 'p', pending: [{ table: 'spans', rowToken: 1, rows: spans }] })).toBe(16);
});

it('names a request by a number JSON carries exactly, never 0 (rows stored before the column)', () => {
  const tokens = ['a', 'b', 'ingest:x:logs', 'ingest:x:spans'].map(rowTokenOf);
  expect(new Set(tokens).size).toBe(4);
  for (const token of tokens) {
    expect(Number.isSafeInteger(token)).toBe(true);
    expect(token).toBeGreaterThan(0);
  }
  expect(rowTokenOf('a')).toBe(tokens[0]);
});

it('looks near the rows’ own times: ranges split at gaps of over a minute, at most 16', () => {
  const minute = 60_000;
  expect(timeRanges([5, 1, 3])).toEqual([[1, 5]]);
  expect(timeRanges([0, minute, 3 * minute, 3 * minute + 1, DAY])).toEqual([
    [0, minute],
    [3 * minute, 3 * minute + 1],
    [DAY, DAY],
  ]);
  // 40 moments an hour apart, the gap after the 10th a day: 16 ranges, split at the largest gaps.
  const times = Array.from({ length: 40 }, (_, i) => i * 3_600_000 + (i >= 10 ? DAY : 0));
  const ranges = timeRanges(times);
  expect(ranges).toHaveLength(16);
  // The day between the 10th and 11th is never read.
  expect(ranges.findIndex(([, hi]) => hi === 9 * 3_600_000) + 1).toBe(
    ranges.findIndex(([lo]) => lo === 10 * 3_600_000 + DAY),
  );
  expect(ranges.flat()).toEqual([...ranges.flat()].sort((a, b) => a - b));
  for (const time of times) expect(ranges.some(([lo, hi]) => time >= lo && time <= hi)).toBe(true);
});

import { type ClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { createCoreTestDatabase } from '../../testing/core-database';
import { validateBatch } from '../validate/validate-batch';
import { ROW_TOKEN_COLUMN, rowTokenOf } from './stored-rows';
import { createBatchWriter, type RequestTokens } from './write-batch';

// The writer tags every row with its request's token, and looks for rows of an earlier try only
// when told one may have stored some: the common path costs no lookup.

const NOW = Math.floor(Date.now() / 60_000) * 60_000;
let ch: ClickHouse;
let queries: string[];
let inserts: { table: string; rows: number }[];
/** The real store, counting what it is asked. */
const counting = (): ClickHouse => ({
  ...ch,
  query: (sql, params, options) => {
    queries.push(sql);
    return ch.query(sql, params, options);
  },
  insert: (table, rows, options) => {
    inserts.push({ table, rows: rows.length });
    return ch.insert(table, rows, options);
  },
});
const writer = () =>
  createBatchWriter({ ch: counting(), logger: silentLogger, metrics: createNoopMetrics(), now: () => NOW });

beforeAll(async () => {
  ch = await createCoreTestDatabase('core_write_batch');
});
afterAll(async () => {
  await dropTestClickHouse(ch);
});
beforeEach(() => {
  queries = [];
  inserts = [];
});

const batch = (tag: string) =>
  validateBatch(
    {
      logs: [0, 1, 2].map((i) => ({
        timestamp: NOW - i * 1000,
        level: 'INFO',
        message: `${tag} ${i}`,
        source: 'backend',
      })),
      spans: [
        {
          trace_id: 'c'.repeat(32),
          span_id: 'd'.repeat(16),
          kind: 'server',
          status: 'ok',
          operation: tag,
          start_time: NOW - 500,
          duration_ms: 3,
        },
      ],
    },
    { now: NOW },
  );
const tokens = (tag: string, mayBeStored: boolean): RequestTokens =>
  Object.assign((table: string) => `test:${tag}:${table}`, { mayBeStored });
const stored = async (tag: string) => {
  const [logs] = await ch.query<{ n: string; t: string }>(
    `SELECT count() AS n, any(${ROW_TOKEN_COLUMN}) AS t FROM logs WHERE startsWith(message, {tag:String})`,
    { tag: `${tag} ` },
  );
  const [spans] = await ch.query<{ n: string; t: string }>(
    `SELECT count() AS n, any(${ROW_TOKEN_COLUMN}) AS t FROM spans WHERE operation = {tag:String}`,
    { tag },
  );
  return {
    logs: Number(logs!.n),
    logsToken: Number(logs!.t),
    spans: Number(spans!.n),
    spansToken: Number(spans!.t),
  };
};

it('writes a fresh request without asking the engine anything, each row naming its request', async () => {
  const counts = await writer()(batch('fresh'), 'p', tokens('fresh', false));
  expect(counts).toMatchObject({ logs: 3, spans: 1, metrics: 0 });
  expect(queries).toEqual([]);
  expect(inserts).toEqual([
    { table: 'logs', rows: 3 },
    { table: 'spans', rows: 1 },
  ]);
  expect(await stored('fresh')).toEqual({
    logs: 3,
    logsToken: rowTokenOf('test:fresh:logs'),
    spans: 1,
    spansToken: rowTokenOf('test:fresh:spans'),
  });
});

it('adds, for a request an earlier try may have written, only what that try did not store', async () => {
  // The earlier try: its logs went in, then storage failed before its spans.
  const failing: ClickHouse = {
    ...counting(),
    insert: async (table, rows, options) => {
      if (table === 'spans') throw new Error('connection reset');
      return ch.insert(table, rows, options);
    },
  };
  const first = createBatchWriter({
    ch: failing,
    logger: silentLogger,
    metrics: createNoopMetrics(),
    now: () => NOW,
  });
  await expect(first(batch('retried'), 'p', tokens('retried', false))).rejects.toMatchObject({
    code: 'backend_unavailable',
  });
  expect(await stored('retried')).toMatchObject({ logs: 3, spans: 0 });

  queries = [];
  inserts = [];
  // The retry, in a process that knows nothing of the first (the engine was not told to drop it).
  const counts = await writer()(batch('retried'), 'p', tokens('retried', true));
  expect(counts).toMatchObject({ logs: 3, spans: 1 });
  expect(queries).toHaveLength(1);
  expect(inserts).toEqual([{ table: 'spans', rows: 1 }]);
  expect(await stored('retried')).toMatchObject({ logs: 3, spans: 1 });
});

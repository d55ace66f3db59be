import { ClickHouseError } from '@clickhouse/client';
import { parseJsonEachRow } from './client';
import {
  type ClickHouse,
  compactRows,
  createTestClickHouse,
  dropTestClickHouse,
  exceededBudget,
  QueryCancelledError,
  refusedByEngine,
} from './index';

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

  it('reads rows whose values hold line breaks, commas and brackets, and no rows at all', async () => {
    const rows = await a.query<{ text: string; n: string }>(
      'SELECT {t:String} AS text, toUInt64(number) AS n FROM numbers(3)',
      { t: 'one\ntwo,\r\n] [{"x": 1}\n' },
    );
    expect(rows).toEqual([0, 1, 2].map((n) => ({ text: 'one\ntwo,\r\n] [{"x": 1}\n', n: String(n) })));
    expect(await a.query('SELECT 1 FROM numbers(0)')).toEqual([]);
  });

  it('quotes 64-bit integers as strings', async () => {
    const [row] = await a.query<{ big: string; small: number }>(
      'SELECT toUInt64(18446744073709551615) AS big, toUInt8(7) AS small',
    );
    expect(row).toEqual({ big: '18446744073709551615', small: 7 });
  });

  it('runs a query on the threads and at the CPU priority asked, and the next one as the engine likes', async () => {
    const SETTINGS = "SELECT getSetting('max_threads') AS threads, getSetting('os_thread_priority') AS nice";
    const [engine] = await a.query<{ threads: number; nice: number }>(SETTINGS);
    const limited = await a.query<{ threads: number; nice: number }>(
      SETTINGS,
      {},
      {
        maxThreads: 1,
        threadNiceness: 10,
      },
    );
    expect(limited).toEqual([{ threads: 1, nice: 10 }]);
    // Every session of the pool (chDB keeps settings per session), so whichever one ran the
    // limited query is asked again.
    const after = await Promise.all(
      Array.from({ length: a.concurrency * 2 }, () => a.query<{ threads: number; nice: number }>(SETTINGS)),
    );
    for (const [row] of after) {
      expect(row).toEqual({ threads: engine?.threads, nice: 0 });
    }
  });

  it('formats answers and parses inserts on the query thread and arms no sampling profiler, on every session', async () => {
    // Both cost a query CPU and give a small answer nothing (decisions.md, "Cost per tool call").
    const SETTINGS =
      "SELECT getSetting('output_format_parallel_formatting') AS parallel, getSetting('input_format_parallel_parsing') AS parsing, getSetting('query_profiler_real_time_period_ns') AS real, getSetting('query_profiler_cpu_time_period_ns') AS cpu";
    const rows = await Promise.all(
      Array.from({ length: a.concurrency * 2 }, () =>
        a.query<{ parallel: boolean; parsing: boolean; real: number; cpu: number }>(SETTINGS),
      ),
    );
    for (const [row] of rows) expect(row).toEqual({ parallel: false, parsing: false, real: 0, cpu: 0 });
  });

  it('reads a point query with a plain pread, and every other query as the engine would', async () => {
    const METHOD = "SELECT getSetting('local_filesystem_read_method') AS method";
    const all = (options?: { maxThreads: number }) =>
      Promise.all(
        Array.from({ length: a.concurrency * 2 }, () => a.query<{ method: string }>(METHOD, {}, options)),
      );
    for (const [row] of await all({ maxThreads: 1 })) expect(row).toEqual({ method: 'pread' });
    // Each session last ran a point query: the default comes back on the next statement.
    for (const [row] of await all()) expect(row).toEqual({ method: 'pread_threadpool' });
    for (const [row] of await all({ maxThreads: 2 })) expect(row).toEqual({ method: 'pread_threadpool' });
  });

  it('states only the settings a session does not hold, and all of them again after a failure', async () => {
    const SETTINGS =
      "SELECT getSetting('max_threads') AS threads, getSetting('max_execution_time') AS budget, getSetting('insert_deduplication_token') AS token";
    type Row = { threads: number; budget: number; token: string };
    // One session at a time for this test: each query below runs on whichever is idle.
    const everyone = async () =>
      Promise.all(Array.from({ length: a.concurrency * 2 }, () => a.query<Row>(SETTINGS)));
    const [engine] = await a.query<Row>(SETTINGS);
    // A query that fails after its settings were SET: the session's state is not known any more.
    await expect(
      a.query("SELECT throwIf(1, 'boom')", {}, { maxThreads: 1, maxExecutionTimeSeconds: 7 }),
    ).rejects.toThrow();
    // An insert with a token: its SETTINGS clause is the insert's own.
    await a.insert('items', [{ id: 900, name: 'tokened' }], { deduplicationToken: 'token-900' });
    for (const [row] of await everyone())
      expect(row).toEqual({ threads: engine?.threads, budget: 30, token: '' });
  });

  it('enforces the per-query memory limit', async () => {
    await expect(
      a.query('SELECT groupArray(number) FROM numbers(5000000)', {}, { maxMemoryUsageBytes: 1_000_000 }),
    ).rejects.toThrow(/memory/i);
  });

  it('runs a quick query next to a slow one instead of behind it (one session each)', async () => {
    const order: string[] = [];
    const slow = a
      .query('SELECT sleepEachRow(0.5) FROM numbers(4) SETTINGS max_block_size = 1')
      .then(() => order.push('slow'));
    await new Promise((r) => setTimeout(r, 100));
    await a.query('SELECT 1').then(() => order.push('quick'));
    await slow;
    expect(order).toEqual(['quick', 'slow']);
    expect(a.concurrency).toBeGreaterThan(1);
  });

  it('runs a repeated query as one statement: the settings it holds are not stated again', async () => {
    // chDB runs each SET as a statement of its own (~1 ms of CPU, as much as a SELECT 1).
    const statements = async () =>
      Number(
        (await a.query<{ n: string }>("SELECT value AS n FROM system.events WHERE event = 'Query'"))[0]?.n,
      );
    // Every session of the client has run it once (and holds its settings).
    await Promise.all(Array.from({ length: a.concurrency }, () => a.query('SELECT 1')));
    const reading = (await statements()) - (await statements());
    const before = await statements();
    await a.query('SELECT 1');
    const after = await statements();
    // The reading itself is one statement (reading is minus it).
    expect(after - before + reading).toBe(1);
  });

  it('runs point queries and scans on sessions that already hold their settings: alternating costs no SET', async () => {
    const statements = async () =>
      Number(
        (await a.query<{ n: string }>("SELECT value AS n FROM system.events WHERE event = 'Query'"))[0]?.n,
      );
    // Every session holds a scan's settings; then one holds a point query's.
    await Promise.all(Array.from({ length: a.concurrency }, () => a.query('SELECT 1')));
    await a.query('SELECT 2', {}, { maxThreads: 1 });
    const reading = (await statements()) - (await statements());
    const before = await statements();
    for (let i = 0; i < 3; i++) {
      await a.query('SELECT 2', {}, { maxThreads: 1 });
      await a.query('SELECT 3');
    }
    const after = await statements();
    // Six statements, no SET among them (each would be one more: two a switch, without the choice).
    expect(after - before + reading).toBe(6);
  });

  it('stops an aborted query in the engine, and answers once it has stopped', async () => {
    const abort = new AbortController();
    const heavy = a.query(
      'SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 1',
      {},
      { signal: abort.signal, maxExecutionTimeSeconds: 120 },
    );
    await new Promise((r) => setTimeout(r, 300));
    const running = await a.query<{ n: string }>(
      "SELECT count() AS n FROM system.processes WHERE query LIKE '%100000000000%' AND query NOT LIKE '%system.processes%'",
    );
    expect(running).toEqual([{ n: '1' }]);
    abort.abort();
    await expect(heavy).rejects.toBeInstanceOf(QueryCancelledError);
    // chDB keeps a finished statement in system.processes until its session runs the next one, so
    // "stopped" is read from its progress: the rows it has read no longer move.
    const progress = async () =>
      (
        await a.query<{ rows: string }>(
          "SELECT sum(read_rows) AS rows FROM system.processes WHERE query LIKE '%100000000000%' AND query NOT LIKE '%system.processes%'",
        )
      )[0]?.rows;
    const stopped = await progress();
    await new Promise((r) => setTimeout(r, 300));
    expect(await progress()).toBe(stopped);
  });

  it('tells a time budget the engine enforced from other failures', async () => {
    const err = await a
      .query(
        'SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 1',
        {},
        {
          maxExecutionTimeSeconds: 1,
        },
      )
      .catch((e: unknown) => e);
    expect(exceededBudget(err)).toBe('time');
    const memory = await a
      .query('SELECT groupArray(number) FROM numbers(5000000)', {}, { maxMemoryUsageBytes: 1_000_000 })
      .catch((e: unknown) => e);
    expect(exceededBudget(memory)).toBe('memory');
    expect(exceededBudget(new Error('other'))).toBeUndefined();
  });

  it('tells an insert the engine refused (nothing stored) from one whose outcome is unknown', async () => {
    // A lone surrogate: the engine's JSON reader refuses the whole insert.
    const refused = await a
      .insert('items', [
        { id: 40, name: 'fine' },
        { id: 41, name: 'x\ud800' },
      ])
      .catch((e: unknown) => e);
    expect(refusedByEngine(refused)).toBe(true);
    expect(await a.query('SELECT id FROM items WHERE id IN (40, 41)')).toEqual([]);
    // A server's exception arrives as the client's ClickHouseError.
    const fromServer = new ClickHouseError({
      message: 'Cannot parse input',
      code: '27',
      type: 'CANNOT_PARSE_INPUT',
    });
    expect(refusedByEngine(fromServer)).toBe(true);
    // Not reached, or no answer heard: the insert may have been stored.
    for (const err of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }),
      new Error('Timeout error.'),
      undefined,
    ])
      expect(refusedByEngine(err)).toBe(false);
  });

  it('says when a query leaves the wait for a session, so its wait can be told from its run', async () => {
    const busy = Array.from({ length: a.concurrency }, () =>
      a.query('SELECT sleepEachRow(0.1) FROM numbers(3) SETTINGS max_block_size = 1'),
    );
    const asked = performance.now();
    let startedAt: number | undefined;
    await a.query('SELECT 1', {}, { onStart: () => (startedAt = performance.now()) });
    const answeredAt = performance.now();
    await Promise.all(busy);
    // Every session was busy for ~300 ms: the query waited, then ran quickly.
    expect(startedAt! - asked).toBeGreaterThan(150);
    expect(answeredAt - startedAt!).toBeLessThan(startedAt! - asked);
  });

  it('pings while every session is busy', async () => {
    const busy = Array.from({ length: a.concurrency }, () =>
      a.query('SELECT sleepEachRow(0.25) FROM numbers(4) SETTINGS max_block_size = 1'),
    );
    await new Promise((r) => setTimeout(r, 100));
    let pinged = false;
    await a.ping().then(() => {
      pinged = true;
    });
    const settled = await Promise.race([
      Promise.all(busy).then(() => 'all done'),
      Promise.resolve('still busy'),
    ]);
    expect([pinged, settled]).toEqual([true, 'still busy']);
    await Promise.all(busy);
  });

  it('drops an insert repeated under its deduplication token, and only that one', async () => {
    await a.command(
      `CREATE TABLE IF NOT EXISTS dedup (id UInt64) ENGINE = MergeTree ORDER BY id
       SETTINGS non_replicated_deduplication_window = 100`,
    );
    await a.insert('dedup', [{ id: 1 }], { deduplicationToken: 'tok-1' });
    await a.insert('dedup', [{ id: 1 }], { deduplicationToken: 'tok-1' });
    // Without a token, the same rows are new rows (no token left over on the session, and no
    // content hashing either) on every session of the client.
    for (let i = 0; i < a.concurrency + 1; i++) await a.insert('dedup', [{ id: 1 }]);
    const [row] = await a.query<{ n: string }>('SELECT count() AS n FROM dedup');
    expect(row?.n).toBe(String(1 + a.concurrency + 1));
  });

  it('pings', async () => {
    expect(await a.ping()).toBe(true);
  });

  it('inserts rows that name different columns: a column a row leaves out gets its default', async () => {
    await a.command(
      `CREATE TABLE IF NOT EXISTS mixed (id UInt64, name String DEFAULT 'unnamed', note Nullable(String),
         tags Map(String, String), quote String) ENGINE = MergeTree ORDER BY id`,
    );
    await a.insert('mixed', [
      { id: 1, name: 'first', tags: { k: 'v' } },
      { id: 2, note: null, quote: 'it\'s "quoted"\n\ttabbed \\ and ünïcödé' },
    ]);
    expect(await a.query('SELECT id, name, note, tags, quote FROM mixed ORDER BY id')).toEqual([
      { id: '1', name: 'first', note: null, tags: { k: 'v' }, quote: '' },
      { id: '2', name: 'unnamed', note: null, tags: {}, quote: 'it\'s "quoted"\n\ttabbed \\ and ünïcödé' },
    ]);
    await expect(a.insert('mixed', [{ id: 3, 'name) SELECT 1 --': 'x' }])).rejects.toThrow(
      /invalid ClickHouse column/,
    );
    // A column no row has a value for is not sent at all, and gets its default all the same.
    await a.insert('mixed', [
      { id: 4, name: undefined, note: null },
      { id: 5, name: undefined, note: undefined },
    ]);
    expect(await a.query('SELECT id, name, note FROM mixed WHERE id >= 4 ORDER BY id')).toEqual([
      { id: '4', name: 'unnamed', note: null },
      { id: '5', name: 'unnamed', note: null },
    ]);
  });

  it('leaves out of an insert the columns no row has a value for', () => {
    expect(
      compactRows([
        { a: 1, b: undefined, c: null, d: '' },
        { a: 2, b: 'x', c: undefined, e: 0 },
      ]),
    ).toEqual({
      columns: ['a', 'b', 'd', 'e'],
      values: [
        [1, null, '', null],
        [2, 'x', null, 0],
      ],
    });
  });

  it('refuses table names that are not identifiers', async () => {
    await expect(a.insert('items; DROP TABLE items', [{ id: 1 }])).rejects.toThrow(
      /invalid ClickHouse table/,
    );
  });
});

describe('parseJsonEachRow', () => {
  it('parses the lines of an answer as an array, with or without the last line break', () => {
    expect(parseJsonEachRow('')).toEqual([]);
    expect(parseJsonEachRow('{"a":1}\n')).toEqual([{ a: 1 }]);
    expect(parseJsonEachRow('{"a":"x\\ny"}\n{"a":"[,]"}')).toEqual([{ a: 'x\ny' }, { a: '[,]' }]);
  });

  it('refuses text that is not JSON lines', () => {
    expect(() => parseJsonEachRow('{"a":1}\nCode: 241. DB::Exception\n')).toThrow(SyntaxError);
  });
});

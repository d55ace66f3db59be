import { traceSearchOutput } from '@svc/tools-trace';
import { type CoreHarness, createCoreHarness } from '../../testing/core-harness';
import { insertLiteralRows, Ms } from '../../testing/hostile-rows';

// trace.search over trace ids no ingest route accepts (a table may still hold them): ids of 250
// characters, and ids that are not UTF-8. A page names its traces to the engine by id; the answer
// must not depend on how long an id is or on what bytes it holds. Expected answers are computed
// here from the rows written.

const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const PROJECT = 'tsi_p';

interface Row {
  trace_id: string | Buffer;
  span_id: string;
  parent_span_id: string;
  operation: string;
  service: string;
  start_ms: number;
  duration_ms: number;
}

const write = (h: CoreHarness, rows: readonly Row[]) =>
  insertLiteralRows(
    h.ch,
    'spans',
    PROJECT,
    rows.map(({ start_ms, ...r }) => ({
      ...r,
      start_time: new Ms(start_ms),
      kind: 'server',
      status: 'ok',
      sample_rate: 1,
    })),
  );

/**
 * Trace `k` of the long ids: a root ('GET /long', service web) and a child (service s0..s2) that
 * starts 1 ms before it, so its root is found by looking its parent up.
 */
function longIdTrace(k: number): Row[] {
  const trace_id = k.toString(16).padStart(250, 'z');
  const t0 = NOW - 2 * 3_600_000 - k * 1000;
  return [
    {
      trace_id,
      span_id: 'a'.repeat(16),
      parent_span_id: '',
      operation: 'GET /long',
      service: 'web',
      start_ms: t0,
      duration_ms: 10,
    },
    {
      trace_id,
      span_id: 'b'.repeat(16),
      parent_span_id: 'a'.repeat(16),
      operation: 'child',
      service: `s${k % 3}`,
      start_ms: t0 - 1,
      duration_ms: 5,
    },
  ];
}

const LONG_TRACES = 1001;

/**
 * Six traces that started at the same instant, ids 'bad-' and one byte that is not UTF-8 (they all
 * read 'bad-\uFFFD'), ordered by those bytes. Each has a child 'GET /x' that starts before its root
 * 'GET /y', except the last, whose root is 'GET /x'.
 */
const TIE_MS = NOW - 60_000;
function badIdTrace(k: number): Row[] {
  const trace_id = Buffer.from([...Buffer.from('bad-'), 0x80 + k]);
  const last = k === 5;
  return [
    {
      trace_id,
      span_id: 'c'.repeat(16),
      parent_span_id: '',
      operation: last ? 'GET /x' : 'GET /y',
      service: `bad${k}`,
      start_ms: last ? TIE_MS : TIE_MS + 1,
      duration_ms: 20,
    },
    {
      trace_id,
      span_id: 'd'.repeat(16),
      parent_span_id: last ? '' : 'c'.repeat(16),
      operation: 'GET /x',
      service: 'db',
      start_ms: last ? TIE_MS + 1 : TIE_MS,
      duration_ms: 3,
    },
  ];
}

/** An older trace whose root is 'GET /x'. */
const OLDER: Row[] = [
  {
    trace_id: 'f'.repeat(32),
    span_id: 'e'.repeat(16),
    parent_span_id: '',
    operation: 'GET /x',
    service: 'old',
    start_ms: NOW - 3_600_000,
    duration_ms: 1,
  },
];

describe('trace.search over stored trace ids ingest refuses', () => {
  let h: CoreHarness;

  beforeAll(async () => {
    h = await createCoreHarness('core_trace_ids', NOW, []);
    const long = Array.from({ length: LONG_TRACES }, (_, k) => longIdTrace(k)).flat();
    for (let i = 0; i < long.length; i += 400) await write(h, long.slice(i, i + 400));
    await write(h, [...Array.from({ length: 6 }, (_, k) => badIdTrace(k)).flat(), ...OLDER]);
  });
  afterAll(async () => {
    await h.close();
  });

  async function search(input: unknown) {
    const res = await h.callTool(PROJECT, 'trace.search', input);
    expect(res.status).toBe(200);
    return traceSearchOutput.parse(res.body);
  }

  it('answers a page of 1000 traces with 250-character ids, each with its root and services', async () => {
    const page = await search({ operation: 'GET /long', limit: 1000 });
    expect(page).toEqual({
      items: Array.from({ length: 1000 }, (_, k) => ({
        trace_id: k.toString(16).padStart(250, 'z'),
        started_at: new Date(NOW - 2 * 3_600_000 - k * 1000 - 1).toISOString(),
        duration_ms: 11,
        span_count: 2,
        error: false,
        root_operation: 'GET /long',
        root_service: 'web',
        root_orphan: false,
        services: [`s${k % 3}`, 'web'].sort(),
      })),
      limit: 1000,
      has_more: true,
      next_cursor: expect.any(String),
    });
    expect(
      (await search({ limit: 1000 })).items.filter((t) => t.root_operation === 'GET /long'),
    ).toHaveLength(1000 - 7);
  });

  it('finds the root and services of traces whose ids are not UTF-8, and pages past them by their bytes', async () => {
    // The search by operation reads its candidates in batches (2 first, for a limit of 1): the
    // second must start after the bytes of the last id of the first, not after its text.
    expect(await search({ operation: 'GET /x', limit: 1 })).toEqual({
      items: [
        {
          trace_id: 'bad-\uFFFD',
          started_at: new Date(TIE_MS).toISOString(),
          duration_ms: 20,
          span_count: 2,
          error: false,
          root_operation: 'GET /x',
          root_service: 'bad5',
          root_orphan: false,
          services: ['bad5', 'db'],
        },
      ],
      limit: 1,
      has_more: true,
      next_cursor: expect.any(String),
    });
    const page = await search({ limit: 6 });
    expect(page.items.map((t) => [t.trace_id, t.root_operation, t.services])).toEqual(
      Array.from({ length: 6 }, (_, k) => ['bad-\uFFFD', k === 5 ? 'GET /x' : 'GET /y', [`bad${k}`, 'db']]),
    );
  });
});

import { traceAggregateOutput } from '@svc/tools-trace';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import { seededRandom } from '../../testing/seeded-random';
import { referenceAggregate } from '../../testing/trace-aggregate-reference';
import { whereOf } from '../sql/filter';
import { sumsByBucket, WHOLE_DAYS } from './trace-aggregate';

// Expected statistics are computed here, with plain loops, from the spans that were ingested.

const DAY = 86_400_000;
const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const keyA: TestKey = { keyId: 'ta_key_a', projectId: 'ta_a', secret: 'secret-a-0123456789', active: true };
const keyB: TestKey = { keyId: 'ta_key_b', projectId: 'ta_b', secret: 'secret-b-0123456789', active: true };

interface Span {
  trace_id: string;
  span_id: string;
  kind: string;
  status: 'ok' | 'error' | 'unset';
  operation: string;
  service?: string;
  start_time: string;
  duration_ms: number;
  sample_rate?: number;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
let next = 0;
function span(operation: string, offsetMs: number, duration_ms: number, extra: Partial<Span> = {}): Span {
  next++;
  return {
    trace_id: hex(Math.floor(next / 4) + 1, 32),
    span_id: hex(next, 16),
    kind: 'server',
    status: 'ok',
    operation,
    start_time: new Date(NOW - offsetMs).toISOString(),
    duration_ms,
    ...extra,
  };
}

function spansOf(marker: string): Span[] {
  const rnd = seededRandom(marker ? 12 : 11);
  const out: Span[] = [];
  const rates = [1, 0.25, 0.01, undefined, 0];
  // Durations from a small set: many ties in the cumulative weights.
  const TIES = [5, 10, 10.5, 20, 40, 80, 160, 1000];
  for (let i = 0; i < 400; i++) {
    const sample_rate = rates[i % rates.length];
    // Errors in the sampled-out services count once.
    const status = i % 11 === 0 ? 'error' : i % 13 === 0 ? 'unset' : 'ok';
    out.push(
      span(`GET /cart${marker}`, Math.floor(rnd() * 13 * DAY), TIES[Math.floor(rnd() * TIES.length)]!, {
        status,
        ...(sample_rate === undefined ? {} : { sample_rate }),
      }),
    );
  }
  for (let i = 0; i < 150; i++) {
    out.push(
      span(`POST /pay${marker}`, Math.floor(rnd() * 13.9 * DAY), Math.round(rnd() * 5000) / 100, {
        sample_rate: i % 3 === 0 ? 0.3 : 0.25,
        status: i % 7 === 0 ? 'error' : 'ok',
        service: 'payments',
      }),
    );
  }
  // Equal restored counts (4 x 1 and 1 x 0.25): ordered by name.
  for (const op of [`tie b${marker}`, `tie a${marker}`]) {
    for (let i = 0; i < 4; i++) out.push(span(op, DAY, 7 + i));
  }
  out.push(span(`tie c${marker}`, DAY, 3, { sample_rate: 0.25 }));
  out.push(span(`solo${marker}`, 2 * DAY, 42.42, { status: 'error', sample_rate: 0.01 }));
  // Durations over sixteen orders of magnitude (zero, under 2^-10 ms, over 2^30 ms): the
  // percentiles must not depend on how the engine buckets them on the way.
  const RATES = [1, 0.5, 0.25, 0.1, 0.3, 0.01];
  for (let i = 0; i < 800; i++) {
    // 1.1e9 ms: past 2^30 ms, within the 14-day span retention that bounds a duration.
    const duration = i === 0 ? 0 : i === 1 ? 1.1e9 : i === 2 ? 0.0001 : 10 ** (rnd() * 12 - 5);
    out.push(
      span(`wide${marker}`, Math.floor(rnd() * 13 * DAY), duration, {
        sample_rate: RATES[Math.floor(rnd() * RATES.length)]!,
        status: rnd() < 0.05 ? 'error' : 'ok',
      }),
    );
  }
  // A 7-day window's edges: from and to are in, a millisecond beyond either is out. (Spans older
  // than the 14-day retention are refused at ingest.)
  out.push(span(`edge${marker}`, 7 * DAY, 1), span(`edge${marker}`, 0, 2));
  out.push(span(`edge${marker}`, 7 * DAY + 1, 3), span(`edge${marker}`, -1, 4));
  return out;
}

const A = spansOf('');
const B = spansOf(' B-ONLY');

const expected = (days: number, limit = 100) => referenceAggregate(A, NOW, days, limit);

describe('trace.aggregate on chDB', () => {
  let h: CoreHarness;

  beforeAll(async () => {
    h = await createCoreHarness('core_trace_aggregate', NOW, [keyA, keyB]);
    await h.ingestAll(keyA, 'spans', A);
    await h.ingestAll(keyB, 'spans', B);
  });
  afterAll(async () => {
    await h.close();
  });

  async function aggregate(input: unknown) {
    const res = await h.callTool('ta_a', 'trace.aggregate', input);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('B-ONLY');
    return traceAggregateOutput.parse(res.body);
  }

  it('restores counts, percentiles and error rates for head sampling, 14 days by default', async () => {
    const body = await aggregate({});
    expect(body).toEqual(expected(14));
    // The reference reads as intended: sampled spans weigh more, errors once, ties by name.
    const solo = body.operations.find((o) => o.operation === 'solo')!;
    expect(solo).toMatchObject({ count: 1, spans: 1, p50_ms: 42.42, p99_ms: 42.42, error_rate: 1 });
    expect(body.operations.map((o) => o.operation).filter((o) => o.startsWith('tie'))).toEqual([
      'tie a',
      'tie b',
      'tie c',
    ]);
    expect(body.operations.find((o) => o.operation === 'edge')).toMatchObject({ spans: 3 });
  });

  it('follows days and limit', async () => {
    expect(await aggregate({ days: 1 })).toEqual(expected(1));
    const week = await aggregate({ days: 7 });
    expect(week).toEqual(expected(7));
    expect(week.operations.find((o) => o.operation === 'edge')).toMatchObject({ spans: 2, p50_ms: 1 });
    expect(await aggregate({ days: 30, limit: 2 })).toEqual(expected(30, 2));
  });

  it('reads the whole days of its window from the projection (migration 19), not span by span', async () => {
    const sql = `EXPLAIN projections = 1 ${sumsByBucket(whereOf({ where: [...WHOLE_DAYS], params: {} }))}`;
    const plan = await h.ch.query<{ explain: string }>(sql, {
      project_id: 'ta_a',
      from_ms: NOW - 14 * DAY,
      to_ms: NOW,
    });
    expect(plan.map((r) => r.explain).join('\n')).toContain('p_operation_day_histogram');
  });

  it('answers an empty window with no operations', async () => {
    const res = await h.callTool('ta_none', 'trace.aggregate', {});
    expect(traceAggregateOutput.parse(res.body)).toMatchObject({ total: 0, operations: [], has_more: false });
  });

  it('refuses days and limit out of range with 400', async () => {
    for (const input of [{ days: 0 }, { days: 366 }, { limit: 0 }, { limit: 10001 }, { operation: 'x' }]) {
      expect((await h.callTool('ta_a', 'trace.aggregate', input)).status).toBe(400);
    }
  });
});

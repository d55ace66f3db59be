import { DAY_MS } from '../storage/time';
import { type CoreHarness, createCoreHarness, type TestKey } from '../testing/core-harness';
import { MAX_FRAME_POSITION, MAX_METRIC_MAGNITUDE, MIN_SAMPLE_RATE } from './value-bounds';

// Every number a record carries has a documented range (docs/ingest.md, "Value bounds"), every
// id a real value, and a session cannot end before it starts: a value outside is a 400 naming
// the field, and nothing of the batch is written. Before, a span of 1e308 ms was stored and broke
// every trace.search of its project, a rate of 5e-324 failed the insert (503), and deep event
// properties overflowed the stack (500).

const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;
const key: TestKey = {
  keyId: 'key_bounds',
  projectId: 'proj_bounds',
  secret: 'secret-bounds-0123',
  active: true,
};

const span = (extra: Record<string, unknown> = {}) => ({
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  span_id: '00f067aa0ba902b7',
  kind: 'server',
  status: 'ok',
  operation: 'GET /x',
  start_time: NOW - 60_000,
  duration_ms: 5,
  ...extra,
});
const log = (extra: Record<string, unknown> = {}) => ({
  timestamp: NOW - 1000,
  level: 'INFO',
  message: 'm',
  source: 'backend',
  ...extra,
});
const crash = (frame: Record<string, unknown>) => ({
  event_id: 'evt_bounds',
  timestamp: NOW - 1000,
  error_type: 'E',
  message: '',
  frames: [{ function: 'f', file: 'a.js', ...frame }],
  breadcrumbs: [],
  platform: 'web',
  app_version: '1.0',
  device_os: 'x',
});
const session = (extra: Record<string, unknown>) => ({
  session_id: 's1',
  user_id: 'u1',
  started_at: NOW - 60_000,
  status: 'ok',
  platform: 'ios',
  app_version: '1.0',
  ...extra,
});
const deep = (depth: number) => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

async function countAll(h: CoreHarness): Promise<number> {
  let total = 0;
  for (const table of ['logs', 'crashes', 'spans', 'metrics', 'events', 'feedback', 'sessions']) {
    const [row] = await h.ch.query<{ n: string }>(
      `SELECT count() AS n FROM ${table} WHERE project_id = {p:String}`,
      { p: key.projectId },
    );
    total += Number(row?.n ?? 0);
  }
  return total;
}

describe('value bounds at ingest', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    h = await createCoreHarness('core_value_bounds', NOW, [key]);
  });
  afterAll(async () => {
    await h.close();
  });

  /** Each case: the batch, the array and index it names, and the field its reason starts with. */
  const refused: [string, Record<string, unknown[]>, string, string][] = [
    ['a duration of 1e308 ms', { spans: [span({ duration_ms: 1e308 })] }, 'spans', 'duration_ms'],
    [
      'a duration past the span retention',
      { spans: [span({ duration_ms: 15 * DAY_MS })] },
      'spans',
      'duration_ms',
    ],
    ['a negative duration', { spans: [span({ duration_ms: -1 })] }, 'spans', 'duration_ms'],
    ['an all-zero trace id', { spans: [span({ trace_id: '0'.repeat(32) })] }, 'spans', 'trace_id'],
    ['an all-zero span id', { spans: [span({ span_id: '0'.repeat(16) })] }, 'spans', 'span_id'],
    [
      'an all-zero parent span id',
      { spans: [span({ parent_span_id: '0'.repeat(16) })] },
      'spans',
      'parent_span_id',
    ],
    ['a rate whose inverse is infinite', { spans: [span({ sample_rate: 5e-324 })] }, 'spans', 'sample_rate'],
    [
      'a rate below the minimum',
      { spans: [span({ sample_rate: MIN_SAMPLE_RATE / 2 })] },
      'spans',
      'sample_rate',
    ],
    ['a log with an all-zero trace id', { logs: [log({ trace_id: '0'.repeat(32) })] }, 'logs', 'trace_id'],
    ['a log with an all-zero span id', { logs: [log({ span_id: '0'.repeat(16) })] }, 'logs', 'span_id'],
    [
      'a metric beyond the magnitude bound',
      { metrics: [{ timestamp: NOW - 1000, name: 'm', value: MAX_METRIC_MAGNITUDE * 10 }] },
      'metrics',
      'value',
    ],
    ['a frame line past Int32', { crashes: [crash({ line: MAX_FRAME_POSITION + 1 })] }, 'crashes', 'frames'],
    ['a frame column past Int32', { crashes: [crash({ column: 2 ** 40 })] }, 'crashes', 'frames'],
    [
      'a session that ends before it starts',
      { sessions: [session({ ended_at: NOW - 120_000 })] },
      'sessions',
      'ended_at',
    ],
    [
      'event properties nested 40 deep',
      { events: [{ timestamp: NOW - 1000, event_name: 'e', user_id: 'u', properties: { p: deep(40) } }] },
      'events',
      'properties',
    ],
    [
      'a rating above 10',
      { feedback: [{ timestamp: NOW - 1000, user_id: 'u', message: 'm', rating: 11 }] },
      'feedback',
      'rating',
    ],
  ];

  it.each(refused)('refuses %s with a 400 naming the field', async (_name, batch, type, field) => {
    const res = await h.ingest(key, batch);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { type, index: 0, reason: expect.stringMatching(new RegExp(`^${field}`)) },
    ]);
    expect(await countAll(h)).toBe(0);
  });

  it('refuses event properties nested 2,000 deep with a 400 naming where (not a stack overflow)', async () => {
    const res = await h.ingest(key, {
      events: [{ timestamp: NOW - 1000, event_name: 'e', user_id: 'u', properties: { p: deep(2000) } }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_input');
    expect(res.body.details[0].path).toMatch(/^events\[0\]\.properties\.p\.a\.a/);
    expect(res.body.details[0].reason).toBe('nested more than 64 levels deep');
  });

  it('refuses a number JSON cannot hold (1e400 parses to Infinity), naming where', async () => {
    const body = `{"metrics":[{"timestamp":${NOW - 1000},"name":"m","value":1e400}]}`;
    const res = await h.ingest(key, body);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: 'metrics[0].value', reason: expect.stringContaining('finite') },
    ]);
  });

  it('accepts the values at the bounds', async () => {
    const batch = {
      spans: [
        span({ duration_ms: 14 * DAY_MS, sample_rate: MIN_SAMPLE_RATE }),
        span({ span_id: '00f067aa0ba902b8', sample_rate: 0, duration_ms: 0 }),
      ],
      metrics: [
        { timestamp: NOW - 1000, name: 'm', value: MAX_METRIC_MAGNITUDE },
        { timestamp: NOW - 1000, name: 'm', value: -MAX_METRIC_MAGNITUDE },
      ],
      crashes: [crash({ line: MAX_FRAME_POSITION, column: 0 })],
      sessions: [session({ ended_at: NOW - 60_000 })],
      events: [{ timestamp: NOW - 1000, event_name: 'e', user_id: 'u', properties: { p: deep(31) } }],
      feedback: [{ timestamp: NOW - 1000, user_id: 'u', message: 'm', rating: 10 }],
    };
    const res = await h.ingest(key, batch);
    expect(res.status).toBe(200);
    expect(await countAll(h)).toBe(2 + 2 + 1 + 1 + 1 + 1);
    const spans = await h.ch.query<{ duration_ms: number; sample_rate: number }>(
      'SELECT duration_ms, sample_rate FROM spans WHERE project_id = {p:String} ORDER BY span_id',
      { p: key.projectId },
    );
    expect(spans).toEqual([
      { duration_ms: 14 * DAY_MS, sample_rate: MIN_SAMPLE_RATE },
      { duration_ms: 0, sample_rate: 1 },
    ]);
  });
});

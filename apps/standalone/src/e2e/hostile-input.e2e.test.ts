import { randomBytes, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { protoSpan, traceRequestBody } from '@svc/observability-core/testing/protobuf-writer';
import { allTools } from '@svc/tool-catalog';
import fc from 'fast-check';
import { holdingsIdle } from '../testing/holdings';
import {
  corruptedBytes,
  fieldNamed,
  hostileValue,
  type Mutation,
  mutationsOf,
  withValueAt,
} from '../testing/hostile-bodies';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { eventually, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import {
  type Answer,
  callTool,
  type HostileTarget,
  prepareWorstInputs,
  signedFetch,
  uploadRecallFile,
  WORST_INPUTS,
} from '../testing/worst-inputs';
import { adminOf, type NewProject, newProject } from './support';

// Hostile input against the one-process stack (`pnpm start`): project A holds an ingest key (which
// any web page makes public) and a read token, and sends what it likes; project B, beside it, sends
// valid data. Whatever A sends, every request answers 2xx or a 4xx naming what is wrong (never a
// 5xx), the event loop is never held past HOLD_BOUND_MS by one piece of work, every one of the 36
// tools still answers 200 for A afterwards (no stored row can break a read), and all of B's
// concurrent ingest succeeds.

/**
 * The documented bound on main-thread CPU without a yield (docs/decisions.md, "The event loop: 50 ms
 * of main-thread CPU").
 */
const HOLD_BOUND_MS = 50;

let stack: SpawnedStack;
let A: NewProject;
let B: NewProject;
let targetA: HostileTarget;

beforeAll(async () => {
  stack = await spawnStack({ env: { SVC_DEMO_SIZE: '0.1' } });
  const admin = adminOf(stack);
  A = await newProject(admin, 'hostile A');
  B = await newProject(admin, 'victim B');
  targetA = { urls: stack.ready.urls, key: A.key, token: A.token };
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.dispose();
});

/** The gateway's metrics port carries the process's event-loop holds (main-thread CPU time). */
async function loopHolds(): Promise<{ max: number; long: number }> {
  const text = await (await fetch(stack.ready.urls.metrics)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    max: value('svc_event_loop_hold_max_seconds') * 1000,
    long: value('svc_event_loop_long_holds_total'),
  };
}

interface HoldReport {
  hold_ms: number;
  wall_ms: number;
}

/**
 * The stack's own reports of long holds (each hold of HOLD_BOUND_MS or more is logged with its
 * main-thread CPU and its wall time).
 */
const holdReports = (): HoldReport[] =>
  stack
    .output()
    .split('\n')
    .filter((line) => line.includes('"event loop held'))
    .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as HoldReport);

/**
 * A turn whose main thread ran for less than a third of its wall time waited for a core most of
 * it: the machine was busy (CI runs four test processes and their stacks on two cores), and the
 * turn then ran everything that arrived meanwhile, many pieces of work between two timer ticks.
 * One piece of work that holds the loop runs for most of its wall time on a machine with a core
 * to spare, as here outside such a spell. So those turns are shown, not counted.
 */
const starved = (r: HoldReport) => r.hold_ms * 3 < r.wall_ms;

/** B sends valid signed batches, one after another, until stopped; every answer is kept. */
function victimIngest(): { stop(): Promise<number[]> } {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const marker = randomUUID();
      const res = await signedFetch(stack.ready.urls.core, '/ingest/v1/batch', B.key, {
        body: JSON.stringify({
          logs: [{ timestamp: new Date().toISOString(), level: 'INFO', message: marker, source: 'backend' }],
          events: [{ timestamp: new Date().toISOString(), event_name: 'victim', user_id: 'b-user' }],
        }),
      }).catch(() => undefined);
      statuses.push(res?.status ?? 0);
      await res?.text();
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return statuses;
    },
  };
}

const isClientOrSuccess = (a: Answer) => a.status < 500 && a.status !== 0;

/**
 * A 4xx explains itself: our JSON error (a code and a message), or from the console, a page that
 * says what went wrong (people read it in a browser). A 2xx needs nothing more.
 */
function expectExplained(a: Answer, context: string): void {
  if (!isClientOrSuccess(a)) throw new Error(`${context}: ${a.status} ${a.text.slice(0, 500)}`);
  if (a.status < 400) return;
  if (/^\s*<!doctype html/i.test(a.text)) {
    if (!/<title>[^<]+<\/title>/i.test(a.text))
      throw new Error(`${context}: a ${a.status} page without a title`);
    return;
  }
  const body = JSON.parse(a.text) as { error?: unknown; message?: unknown };
  if (typeof body.error !== 'string' || typeof body.message !== 'string')
    throw new Error(`${context}: a ${a.status} without an error code and message: ${a.text.slice(0, 500)}`);
}

/** A 400 for a mutation names the mutated field (or, for a value deep inside one, that field). */
function expectFieldNamed(a: Answer, m: Mutation, context: string): void {
  expectExplained(a, context);
  if (a.status !== 400) return;
  const field = fieldNamed(m.path);
  const snake = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  if (!a.text.includes(field) && !a.text.includes(snake))
    throw new Error(
      `${context}: the 400 for ${m.path.join('.')} does not name ${field}: ${a.text.slice(0, 500)}`,
    );
}

const answerOf = async (res: Response): Promise<Answer> => ({ status: res.status, text: await res.text() });

describe('the worst inputs found so far', () => {
  it(`answer 2xx or a clear 4xx, hold the event loop under ${HOLD_BOUND_MS} ms, and fail none of B's ingest`, async () => {
    await prepareWorstInputs();
    const before = await loopHolds();
    const reportedBefore = holdReports().length;
    const victim = victimIngest();
    const seen: { input: string; statuses: number[] }[] = [];
    for (const input of WORST_INPUTS) {
      const answers = await input.send(targetA);
      seen.push({ input: input.name, statuses: answers.map((a) => a.status) });
      for (const a of answers) expectExplained(a, input.name);
    }
    const statuses = await victim.stop();
    const after = await loopHolds();
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // Every long hold is both counted and reported; none may be one the stack had a core for.
    // The log line follows the count through the stack's stderr pipe.
    const counted = after.long - before.long;
    await eventually('the long holds logged', () => holdReports().length - reportedBefore >= counted);
    const reports = holdReports().slice(reportedBefore);
    expect(reports.length).toBe(counted);
    if (reports.length > 0)
      console.warn(
        `longest hold ${after.max} ms; holds while the machine was busy:`,
        reports.filter(starved),
      );
    expect(reports.filter((r) => !starved(r))).toEqual([]);
  }, 900_000);
});

// --- property-based bodies, one route at a time ---------------------------------------------

const now = () => new Date().toISOString();
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

function batchTemplate(): Record<string, unknown[]> {
  const ts = now();
  return {
    logs: [
      {
        timestamp: ts,
        level: 'INFO',
        message: 'm',
        source: 'backend',
        platform: 'ios',
        app_version: '1.0.0',
        user_id: 'u1',
        session_id: 's1',
        device_id: 'd1',
        trace_id: hex(16),
        span_id: hex(8),
        event_id: 'e1',
        attributes: { k: 'v', n: 1 },
      },
    ],
    crashes: [
      {
        event_id: `c${hex(4)}`,
        timestamp: ts,
        error_type: 'TypeError',
        message: 'boom',
        frames: [{ function: 'f', file: 'a.js', line: 1, column: 2, in_app: true }],
        breadcrumbs: [{ timestamp: ts, category: 'navigation', message: 'to /', level: 'info' }],
        platform: 'ios',
        app_version: '1.0.0',
        device_os: 'iOS 17',
        user_id: 'u1',
        session_id: 's1',
      },
    ],
    spans: [
      {
        trace_id: hex(16),
        span_id: hex(8),
        parent_span_id: hex(8),
        kind: 'server',
        status: 'ok',
        operation: 'GET /',
        service: 'api',
        start_time: ts,
        duration_ms: 12.5,
        attributes: { route: '/' },
        user_id: 'u1',
        session_id: 's1',
        sample_rate: 0.5,
      },
    ],
    metrics: [
      {
        timestamp: ts,
        name: 'app_start_ms',
        value: 1200,
        unit: 'ms',
        platform: 'ios',
        app_version: '1.0.0',
        session_id: 's1',
        user_id: 'u1',
      },
    ],
    events: [
      {
        timestamp: ts,
        event_name: 'view',
        user_id: 'u1',
        session_id: 's1',
        platform: 'ios',
        app_version: '1.0.0',
        properties: { utm_source: 'x', n: 2 },
      },
    ],
    feedback: [
      {
        feedback_id: `f${hex(4)}`,
        timestamp: ts,
        user_id: 'u1',
        session_id: 's1',
        message: 'nice',
        rating: 4,
        platform: 'ios',
        app_version: '1.0.0',
      },
    ],
    sessions: [
      {
        session_id: `s${hex(4)}`,
        user_id: 'u1',
        started_at: ts,
        ended_at: ts,
        status: 'ok',
        platform: 'ios',
        app_version: '1.0.0',
      },
    ],
    experiments: [
      { experiment_key: 'exp', goal_event: 'buy', variants: ['control', 'b'], baseline: 'control' },
    ],
  };
}

const nanos = () => String(BigInt(Date.now()) * 1_000_000n);
const attr = (key: string, value: unknown) => ({ key, value });

function otlpTracesTemplate() {
  return {
    resourceSpans: [
      {
        resource: { attributes: [attr('service.name', { stringValue: 'api' })] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: [
              {
                traceId: hex(16),
                spanId: hex(8),
                parentSpanId: hex(8),
                name: 'GET /',
                kind: 2,
                startTimeUnixNano: nanos(),
                endTimeUnixNano: nanos(),
                attributes: [
                  attr('enduser.id', { stringValue: 'u1' }),
                  attr('n', { intValue: '3' }),
                  attr('d', { doubleValue: 0.5 }),
                  attr('list', { arrayValue: { values: [{ stringValue: 'a' }] } }),
                  attr('map', { kvlistValue: { values: [attr('x', { boolValue: true })] } }),
                ],
                status: { code: 1 },
              },
            ],
          },
        ],
      },
    ],
  };
}

function otlpLogsTemplate() {
  return {
    resourceLogs: [
      {
        resource: { attributes: [attr('service.name', { stringValue: 'api' })] },
        scopeLogs: [
          {
            logRecords: [
              {
                timeUnixNano: nanos(),
                severityNumber: 9,
                severityText: 'INFO',
                body: { stringValue: 'hello' },
                attributes: [attr('session.id', { stringValue: 's1' })],
                traceId: hex(16),
                spanId: hex(8),
              },
            ],
          },
        ],
      },
    ],
  };
}

function otlpMetricsTemplate() {
  const point = {
    timeUnixNano: nanos(),
    asDouble: 1.5,
    attributes: [attr('user.id', { stringValue: 'u1' })],
  };
  return {
    resourceMetrics: [
      {
        resource: { attributes: [attr('service.version', { stringValue: '1.0.0' })] },
        scopeMetrics: [
          {
            metrics: [
              { name: 'memory_mb', unit: 'MB', gauge: { dataPoints: [point] } },
              {
                name: 'requests',
                sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ ...point, asInt: '7' }] },
              },
              {
                name: 'latency',
                histogram: {
                  aggregationTemporality: 1,
                  dataPoints: [{ timeUnixNano: nanos(), count: '2', sum: 3, min: 1, max: 2 }],
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

const otlp = (path: string, body: Buffer, contentType = 'application/json') =>
  fetch(new URL(path, stack.ready.urls.core), {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-svc-ingest-key': `${A.key.key_id}:${A.key.secret}` },
    body: new Uint8Array(body),
  }).then(answerOf);

const signed = (path: string, body: Buffer, contentType?: string) =>
  signedFetch(stack.ready.urls.core, path, A.key, {
    body,
    ...(contentType ? { contentType } : {}),
  }).then(answerOf);

/**
 * Each property runs a bounded number of bodies: the whole file stays within minutes. For a longer
 * search by hand: HOSTILE_RUNS=1000.
 */
const RUNS = { numRuns: Number(process.env.HOSTILE_RUNS ?? 60), endOnFailure: true } as const;

describe('property-based hostile bodies for every ingest route', () => {
  let victim: ReturnType<typeof victimIngest>;
  beforeAll(() => {
    victim = victimIngest();
  });
  afterAll(async () => {
    const statuses = await victim.stop();
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it("the templates themselves are valid (so a 400 is the mutation's)", async () => {
    const answers = await Promise.all([
      signed('/ingest/v1/batch', Buffer.from(JSON.stringify(batchTemplate()))),
      otlp('/v1/traces', Buffer.from(JSON.stringify(otlpTracesTemplate()))),
      otlp('/v1/logs', Buffer.from(JSON.stringify(otlpLogsTemplate()))),
      otlp('/v1/metrics', Buffer.from(JSON.stringify(otlpMetricsTemplate()))),
    ]);
    expect(answers.map((a) => [a.status, a.text.slice(0, 300)])).toEqual(
      answers.map((a) => [200, a.text.slice(0, 300)]),
    );
  });

  it('signed batches: 2xx or a 400 naming the field, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constant(null).chain(() => mutationsOf(batchTemplate())),
        async (m) => expectFieldNamed(await signed('/ingest/v1/batch', m.body), m, 'batch'),
      ),
      RUNS,
    );
  }, 300_000);

  it('signed batches as whole hostile bodies (not an object, deep, huge, not UTF-8)', async () => {
    await fc.assert(
      fc.asyncProperty(hostileValue, async (body) =>
        expectExplained(await signed('/ingest/v1/batch', body), 'whole batch'),
      ),
      RUNS,
    );
  }, 300_000);

  for (const [path, template] of [
    ['/v1/traces', otlpTracesTemplate],
    ['/v1/logs', otlpLogsTemplate],
    ['/v1/metrics', otlpMetricsTemplate],
  ] as const) {
    it(`OTLP JSON ${path}: 2xx or a 400 naming the field`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constant(null).chain(() => mutationsOf(template())),
          async (m) => expectFieldNamed(await otlp(path, m.body), m, `OTLP JSON ${path}`),
        ),
        RUNS,
      );
    }, 300_000);
  }

  it('OTLP protobuf /v1/traces: corrupted, cut and random bodies answer 2xx or 4xx', async () => {
    const start = BigInt(Date.now()) * 1_000_000n;
    const valid = traceRequestBody(
      Array.from({ length: 3 }, (_, i) =>
        protoSpan({
          traceId: randomBytes(16),
          spanId: randomBytes(8),
          name: `op ${i}`,
          startNs: start,
          endNs: start + 1_000_000n,
        }),
      ),
    );
    expect((await otlp('/v1/traces', valid, 'application/x-protobuf')).status).toBe(200);
    await fc.assert(
      fc.asyncProperty(corruptedBytes(valid), async (body) =>
        expectExplained(await otlp('/v1/traces', body, 'application/x-protobuf'), 'OTLP protobuf'),
      ),
      RUNS,
    );
  }, 300_000);

  it('recall uploads: random bytes and hostile plaintexts, then each file reads with 200', async () => {
    const line = fc.tuple(fc.constantFrom('ts', 'level', 'message', 'tag', 'extra'), hostileValue);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 4096 }).map((b) => ({ gzipped: Buffer.from(b), name: 'random.bin' })),
          fc.array(line, { minLength: 1, maxLength: 5 }).map((records) => ({
            gzipped: gzipLines(records),
            name: 'hostile.log',
          })),
        ),
        fc.string({
          unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
          maxLength: 300,
        }),
        async (file, name) => {
          const { upload, fileId } = await uploadRecallFile(targetA, file.gzipped, `${name}${file.name}`);
          expectExplained(upload, 'recall upload');
          if (fileId) {
            const read = await callTool(targetA, 'log.file_entries', { file_id: fileId });
            expect({ status: read.status, text: read.text.slice(0, 300) }).toMatchObject({ status: 200 });
          }
        },
      ),
      { ...RUNS, numRuns: Math.ceil(RUNS.numRuns / 2) },
    );
  }, 300_000);

  it('debug-file uploads: hostile parameters and bodies answer 2xx or 4xx', async () => {
    const param = fc.oneof(
      fc.constantFrom('sourcemap', 'breakpad', 'dsym', 'so', 'web', 'ios', 'android', 'a.js.map'),
      fc.string({
        unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
        maxLength: 300,
      }),
    );
    const body = fc.oneof(
      fc.constant(Buffer.from('{"version":3,"file":"a.js","sources":["a.ts"],"names":[],"mappings":"AAAA"}')),
      fc.constant(
        Buffer.from('MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 app\nFUNC 10 5 0 main\n'),
      ),
      hostileValue,
      fc.uint8Array({ maxLength: 8192 }).map((b) => Buffer.from(b)),
    );
    await fc.assert(
      fc.asyncProperty(
        param,
        param,
        param,
        fc.option(param),
        body,
        async (kind, platform, name, release, bytes) => {
          const query = new URLSearchParams({ kind, platform, name, ...(release ? { release } : {}) });
          const a = await signed(`/ingest/v1/debug-files?${query}`, bytes, 'application/octet-stream');
          expectExplained(a, `debug file ${query}`);
        },
      ),
      RUNS,
    );
  }, 300_000);
});

/** NDJSON lines, each a valid entry with one hostile field, gzip'd as a device writes its file. */
function gzipLines(records: [string, Buffer][]): Buffer {
  const lines = records.map(([key, value]) =>
    withValueAt({ ts: now(), level: 'INFO', message: 'm' }, [key], value),
  );
  return gzipSync(Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
}

// --- afterwards: every tool of A answers --------------------------------------------------

describe('after all of that, every tool of project A answers 200', () => {
  it('each of the 36 tools with its documented example', async () => {
    const failed: string[] = [];
    for (const tool of allTools) {
      const a = await callTool(targetA, tool.name, tool.example);
      if (a.status !== 200) failed.push(`${tool.name} ${a.status} ${a.text.slice(0, 200)}`);
    }
    expect(failed).toEqual([]);
  }, 300_000);

  it('and on what A stored: every trace, crash, file, user and session it left', async () => {
    const ok = async (tool: string, args: Record<string, unknown>) => {
      const a = await callTool(targetA, tool, args);
      expect({ tool, args, status: a.status, text: a.text.slice(0, 300) }).toMatchObject({ status: 200 });
      return JSON.parse(a.text) as Record<string, unknown>;
    };
    const traces = (await ok('trace.search', { limit: 200 })).items as { trace_id: string }[];
    for (const t of traces) await ok('trace.get', { trace_id: t.trace_id });
    for (const status of ['error', 'ok']) await ok('trace.search', { status, limit: 50 });
    await ok('trace.aggregate', { days: 1 });
    const crashes = (await ok('crash.recent', { limit: 200 })).items as {
      event_id: string;
      signature: string;
    }[];
    for (const c of crashes) {
      await ok('crash.get', { event_id: c.event_id });
      await ok('crash.by_signature', { signature: c.signature });
    }
    const files = (await ok('log.list_files', { limit: 200 })).items as { file_id: string }[];
    for (const f of files) await ok('log.file_entries', { file_id: f.file_id, limit: 50 });
    for (const group_by of ['level', 'user_id', 'platform']) {
      const groups = (await ok('log.aggregate', { group_by })).groups as { key: string }[];
      if (group_by === 'user_id')
        for (const g of groups.slice(0, 20)) if (g.key) await ok('user.detail', { user_id: g.key });
    }
    for (const group_by of ['signature', 'error_type', 'device_os', 'app_version', 'user_id'])
      await ok('crash.aggregate', { group_by });
    await ok('session.detail', { session_id: 's1' });
    await ok('log.search', { search: '\ufffd' });
    await ok('apm.stats', { days: 1 });
    await ok('apm.search', { limit: 200 });
    await ok('apm.memory_growth', {});
    await ok('track.recent', { limit: 200 });
    await ok('track.stats', { days: 1 });
    await ok('analytics.dimensions', {});
    await ok('feedback.search', { limit: 200 });
    await ok('release.health', { version: '1.0.0' });
    await ok('log.audit', { limit: 200 });
  }, 600_000);
});

describe('after all of that, nothing is held', () => {
  it('every holding gauge of the stack returns to 0 (budgets, slots, sessions, streams, waiters)', async () => {
    expect(await holdingsIdle(stack.ready.urls.metrics)).toEqual({});
  });
});

import { gzipSync } from 'node:zlib';
import { signIngestBody } from '@svc/ingest-auth';
import fc from 'fast-check';
import request from 'supertest';
import { type CoreHarness, createCoreHarness, type TestKey } from '../testing/core-harness';
import { failingToolCalls, type ToolIds } from '../testing/every-tool';
import {
  gaugeRequestBody,
  keyValue,
  logField,
  logsRequestBody,
  pb,
  pointField,
  protoSpan,
  traceRequestBody,
} from '../testing/protobuf-writer';

// The class of finding 25 made impossible, property by property: whatever a holder of an ingest
// key sends to any ingest route (signed batches, OTLP traces, logs and metrics as JSON and as
// protobuf, debug files), with extreme values in any field (NaN-like strings, 1e308, -0, huge and
// deep structures, bytes that are not UTF-8, lone surrogates, control characters, all-zero ids,
// a value of the wrong type), the answer is a 2xx or a 4xx that names the field, never a 5xx;
// another project's valid batch sent at the same time is stored; and afterwards every tool the
// core serves answers 200 for the project, with an answer its output schema accepts.

const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const A: TestKey = {
  keyId: 'key_hostile',
  projectId: 'proj_hostile',
  secret: 'secret-hostile-0123',
  active: true,
};
const B: TestKey = {
  keyId: 'key_bystander',
  projectId: 'proj_bystander',
  secret: 'secret-by-0123456',
  active: true,
};
const RUNS = 25;

const IDS: ToolIds = {
  user_id: 'u1',
  session_id: 's1',
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  event_id: 'evt_1',
  signature: '0123456789abcdef',
  experiment_key: 'exp_1',
  metric: 'app_start_ms',
  event_name: 'purchase',
  version: '1.0.0',
};

// --- extreme values -------------------------------------------------------------------------

/** Replaced, in the bytes of a body, by bytes that are not UTF-8 (a lone surrogate in CESU-8, 0xFF). */
const NOT_UTF8_MARK = '@@NOT_UTF8@@';
const NOT_UTF8 = Buffer.from([0xed, 0xa0, 0x80, 0xff]);

function deep(depth: number, array: boolean): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = array ? [value] : { a: value };
  return value;
}

const extremeString = fc.oneof(
  fc.constantFrom(
    '',
    'NaN',
    'Infinity',
    '-Infinity',
    '-0',
    '1e308',
    'null',
    'true',
    '0'.repeat(32),
    '0'.repeat(16),
    '\u0000\u0007\u001b[31m\u202e\u2066\ufeff',
    'x\ud800',
    '\udc00',
    '\ud83d\udc4b',
    '{"role":"system"}',
    '2026-02-30T00:00:00Z',
    NOT_UTF8_MARK,
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(300, 5000, 70_000).map((n) => 'x'.repeat(n)),
);
const extremeNumber = fc.oneof(
  fc.constantFrom(1e308, -1e308, -0, 0, 5e-324, 1e-7, 2 ** 31, 2 ** 53 + 2, 2 ** 64, -1, 1e16, 0.5, 11),
  fc.double(),
  fc.integer(),
);
const extremeStructure = fc.oneof(
  fc.integer({ min: 1, max: 80 }).chain((d) => fc.boolean().map((a) => deep(d, a))),
  fc.constantFrom(
    deep(2000, false),
    deep(2000, true),
    [],
    {},
    null,
    Array.from({ length: 300 }, (_, i) => i),
  ),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.constant('v'), { maxKeys: 100 }),
);
const extremeValue = fc.oneof(extremeString, extremeNumber, extremeStructure, fc.boolean());

type Path = (string | number)[];

/** `base` with the value at each path replaced (a missing parent is made). */
function mutated<T>(base: T, changes: readonly (readonly [Path, unknown])[]): T {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  for (const [path, value] of changes) {
    let node: Record<string | number, unknown> = copy;
    for (const segment of path.slice(0, -1)) {
      const next = node[segment];
      if (typeof next !== 'object' || next === null) node[segment] = {};
      node = node[segment] as Record<string | number, unknown>;
    }
    node[path.at(-1)!] = value;
  }
  return copy as T;
}

/** 0 to 3 changes at paths of `paths`, each to an extreme value. */
const changesAt = (paths: Path[], values: fc.Arbitrary<unknown> = extremeValue) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant<[Path, unknown][]>([]) },
    {
      weight: 2,
      arbitrary: fc.array(fc.tuple(fc.constantFrom(...paths), values), { minLength: 1, maxLength: 3 }),
    },
  );

/** Body bytes of `value` as JSON, with the marker replaced by bytes that are not UTF-8. */
function jsonBytes(value: unknown): Buffer {
  const text = JSON.stringify(value);
  const parts = text.split(NOT_UTF8_MARK).map((part) => Buffer.from(part, 'utf8'));
  return Buffer.concat(parts.flatMap((part, i) => (i === 0 ? [part] : [NOT_UTF8, part])));
}

// --- answers --------------------------------------------------------------------------------

interface Answer {
  status: number;
  body: { error?: string; message?: string; details?: unknown };
}

/** A refusal that says what it refuses: every detail names a field, or the message names the body. */
function namesTheField(answer: Answer): boolean {
  const { body } = answer;
  if (typeof body.message !== 'string' || body.message === '') return false;
  if (body.error === 'payload_too_large') return true;
  if (body.error !== 'invalid_input') return false;
  if (Array.isArray(body.details) && body.details.length > 0)
    return body.details.every((d: Record<string, unknown>) => {
      const where = d.path ?? d.parameter ?? d.type;
      return typeof where === 'string' && where !== '' && typeof d.reason === 'string' && d.reason !== '';
    });
  // Without details: the whole body is what is wrong, and the message says how.
  return /body|batch|Content-Type|Content-Encoding|file|platform|parameter/i.test(body.message);
}

/** Answers per status of the current property: each must see both stored and refused requests. */
let statuses: Record<number, number> = {};

function expectHandled(answer: Answer, what: string): void {
  statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  const ok = answer.status < 300 || ([400, 413].includes(answer.status) && namesTheField(answer));
  if (!ok) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
}

// --- requests -------------------------------------------------------------------------------

let h: CoreHarness;
/** Each signed request gets its own timestamp: no two are a replay of each other. */
let requestNumber = 0;

function signed(key: TestKey, path: string, body: Buffer, headers: Record<string, string> = {}) {
  const ts = Math.floor(NOW / 1000) - (requestNumber++ % 290);
  return request(h.app)
    .post(path)
    .set({
      'content-type': 'application/octet-stream',
      'x-svc-key': key.keyId,
      'x-svc-timestamp': String(ts),
      'x-svc-signature': signIngestBody(key.secret, ts, body),
      ...headers,
    })
    .send(body);
}

const otlp = (path: string, body: Buffer, contentType: string) =>
  request(h.app)
    .post(path)
    .set({ 'content-type': contentType, 'x-svc-ingest-key': `${A.keyId}:${A.secret}` })
    // The bytes as they are: supertest would otherwise send a Buffer's JSON for application/json.
    .serialize((bytes: Buffer) => bytes as unknown as string)
    .send(body);

/** A valid batch of project B, sent beside each hostile request: it must be stored. */
const bystander = (n: number) =>
  signed(
    B,
    '/ingest/v1/batch',
    jsonBytes({
      logs: [{ timestamp: NOW - 1000, level: 'INFO', message: `bystander ${n}`, source: 'backend' }],
    }),
  );

async function sendBesideBystander(send: () => request.Test, what: string): Promise<void> {
  const n = requestNumber;
  const [hostile, other] = await Promise.all([send(), bystander(n)]);
  expectHandled(hostile, what);
  if (other.status !== 200) throw new Error(`bystander during ${what}: ${other.status} ${other.text}`);
}

/** Both outcomes came up (a property that only ever refused would prove little), then the tools. */
async function everyToolAnswers(): Promise<void> {
  const stored = Object.entries(statuses)
    .filter(([s]) => Number(s) < 300)
    .reduce((n, [, c]) => n + c, 0);
  const refused = Object.entries(statuses)
    .filter(([s]) => Number(s) >= 400)
    .reduce((n, [, c]) => n + c, 0);
  statuses = {};
  expect(stored).toBeGreaterThan(0);
  expect(refused).toBeGreaterThan(0);
  expect(await failingToolCalls(h, A.projectId, IDS)).toEqual([]);
}

beforeAll(async () => {
  h = await createCoreHarness('core_hostile_property', NOW, [A, B]);
});
afterAll(async () => {
  await h.close();
});

// --- signed batches -------------------------------------------------------------------------

const T = NOW - 60_000;
const TEMPLATES: Record<string, Record<string, unknown>> = {
  logs: {
    timestamp: T,
    level: 'ERROR',
    message: 'm',
    source: 'device',
    user_id: IDS.user_id,
    session_id: IDS.session_id,
    trace_id: IDS.trace_id,
    attributes: { k: 'v' },
  },
  spans: {
    trace_id: IDS.trace_id,
    span_id: '00f067aa0ba902b7',
    kind: 'server',
    status: 'error',
    operation: 'GET /x',
    start_time: T,
    duration_ms: 12.5,
    user_id: IDS.user_id,
    session_id: IDS.session_id,
    sample_rate: 0.5,
    attributes: { k: 'v' },
  },
  crashes: {
    event_id: IDS.event_id,
    timestamp: T,
    error_type: 'TypeError',
    message: 'm',
    frames: [
      { function: 'f', file: 'a.js', line: 1, column: 2, in_app: true },
      // A native frame with every optional field, its module's build id among them.
      {
        function: '??',
        file: '',
        address: '0x10',
        module: 'libapp.so',
        debug_id: 'ABCDEF0123',
        in_app: false,
      },
    ],
    breadcrumbs: [{ timestamp: T, category: 'nav', message: 'm' }],
    signature: IDS.signature,
    platform: 'web',
    app_version: IDS.version,
    device_os: 'x',
    user_id: IDS.user_id,
    session_id: IDS.session_id,
  },
  metrics: {
    timestamp: T,
    name: IDS.metric,
    value: 812,
    unit: 'ms',
    app_version: IDS.version,
    session_id: IDS.session_id,
    user_id: IDS.user_id,
  },
  events: {
    timestamp: T,
    event_name: IDS.event_name,
    user_id: IDS.user_id,
    session_id: IDS.session_id,
    properties: { experiment_key: IDS.experiment_key, variant: 'b', utm_source: 'x' },
  },
  feedback: {
    timestamp: T,
    user_id: IDS.user_id,
    session_id: IDS.session_id,
    message: 'checkout',
    rating: 4,
  },
  sessions: {
    session_id: IDS.session_id,
    user_id: IDS.user_id,
    started_at: T,
    ended_at: T + 1000,
    status: 'crashed',
    platform: 'ios',
    app_version: IDS.version,
  },
  experiments: {
    experiment_key: IDS.experiment_key,
    goal_event: IDS.event_name,
    variants: ['a', 'b'],
    baseline: 'a',
  },
};

const recordOf = (type: string) =>
  changesAt([
    ...Object.keys(TEMPLATES[type]!).map((k) => [k]),
    ['extra_field'],
    ['attributes', 'k'],
    ['properties', 'p'],
    ['frames', 0, 'line'],
    ['frames', 0],
    ['frames', 1, 'address'],
    ['frames', 1, 'module'],
    ['frames', 1, 'debug_id'],
    ['breadcrumbs', 0, 'timestamp'],
    ['variants', 0],
  ]).map((changes) => mutated(TEMPLATES[type]!, changes));

const batchArb = fc
  .record(
    Object.fromEntries(
      Object.keys(TEMPLATES).map((type) => [
        type,
        fc.option(fc.array(recordOf(type), { maxLength: 2 }), { nil: undefined, freq: 2 }),
      ]),
    ),
    { requiredKeys: [] },
  )
  .chain((batch) =>
    fc.oneof(
      { weight: 8, arbitrary: fc.constant<unknown>(batch) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom('logs', 'spans', 'nope'), extremeValue)
          .map(([k, v]) => ({ ...batch, [k]: v })),
      },
      { weight: 1, arbitrary: extremeValue },
    ),
  );

it('signed batches: 2xx or a 4xx naming the field, the bystander stored, then every tool answers', async () => {
  await fc.assert(
    fc.asyncProperty(batchArb, fc.boolean(), async (batch, gzip) => {
      const body = jsonBytes(batch);
      const sent = gzip ? gzipSync(body) : body;
      await sendBesideBystander(
        () => signed(A, '/ingest/v1/batch', sent, gzip ? { 'content-encoding': 'gzip' } : {}),
        `batch ${body.toString('utf8').slice(0, 300)}`,
      );
    }),
    // Always one batch that is stored and one that is refused, whatever the seed.
    {
      numRuns: RUNS * 2,
      examples: [
        [TEMPLATES, false],
        [{ ...TEMPLATES, logs: 'x' }, true],
      ],
    },
  );
  await everyToolAnswers();
});

// --- OTLP as JSON ---------------------------------------------------------------------------

const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);

/** An AnyValue: scalars of every kind, some nested `depth` deep. */
const anyValue = fc.oneof(
  extremeString.map((s) => ({ stringValue: s })),
  extremeNumber.map((x) => ({ doubleValue: x })),
  fc.constantFrom({ doubleValue: 'NaN' }, { doubleValue: 'Infinity' }, { intValue: '99999999999999999999' }),
  fc.constantFrom({ intValue: '-9223372036854775808' }, { boolValue: 'yes' }, { bytesValue: 5 }, {}),
  fc.integer({ min: 1, max: 40 }).map((depth) => {
    let v: unknown = { stringValue: 'leaf' };
    for (let i = 0; i < depth; i++)
      v = i % 2 ? { arrayValue: { values: [v] } } : { kvlistValue: { values: [{ key: `k${i}`, value: v }] } };
    return v;
  }),
  extremeValue,
);

const SPAN = ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 0];
const LOG = ['resourceLogs', 0, 'scopeLogs', 0, 'logRecords', 0];
const POINT = ['resourceMetrics', 0, 'scopeMetrics', 0, 'metrics', 0, 'gauge', 'dataPoints', 0];

const otlpTemplates = {
  '/v1/traces': {
    template: {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: IDS.trace_id,
                  spanId: 'eee19b7ec3c1b174',
                  name: 'op',
                  kind: 2,
                  startTimeUnixNano: ns(T),
                  endTimeUnixNano: ns(T + 5),
                  attributes: [{ key: 'enduser.id', value: { stringValue: IDS.user_id } }],
                  status: { code: 2 },
                },
              ],
            },
          ],
        },
      ],
    },
    paths: [
      ['resourceSpans'],
      ['resourceSpans', 0],
      ['resourceSpans', 0, 'scopeSpans'],
      ['resourceSpans', 0, 'resource', 'attributes'],
      [...SPAN.slice(0, -1)],
      SPAN,
      ...[
        'traceId',
        'spanId',
        'parentSpanId',
        'name',
        'kind',
        'startTimeUnixNano',
        'endTimeUnixNano',
        'traceState',
      ].map((k) => [...SPAN, k]),
      [...SPAN, 'status', 'code'],
      [...SPAN, 'attributes'],
      [...SPAN, 'attributes', 0, 'key'],
    ],
    valuePath: [...SPAN, 'attributes', 0, 'value'],
  },
  '/v1/logs': {
    template: {
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                {
                  timeUnixNano: ns(T),
                  severityNumber: 17,
                  body: { stringValue: 'm' },
                  traceId: IDS.trace_id,
                  attributes: [{ key: 'user.id', value: { stringValue: IDS.user_id } }],
                },
              ],
            },
          ],
        },
      ],
    },
    paths: [
      ['resourceLogs'],
      [...LOG.slice(0, -1)],
      LOG,
      ...[
        'timeUnixNano',
        'observedTimeUnixNano',
        'severityNumber',
        'severityText',
        'traceId',
        'spanId',
        'attributes',
      ].map((k) => [...LOG, k]),
    ],
    valuePath: [...LOG, 'body'],
  },
  '/v1/metrics': {
    template: {
      resourceMetrics: [
        {
          scopeMetrics: [
            {
              metrics: [
                {
                  name: IDS.metric,
                  unit: 'ms',
                  gauge: { dataPoints: [{ timeUnixNano: ns(T), asDouble: 812 }] },
                },
              ],
            },
          ],
        },
      ],
    },
    paths: [
      ['resourceMetrics'],
      ['resourceMetrics', 0, 'scopeMetrics', 0, 'metrics'],
      ['resourceMetrics', 0, 'scopeMetrics', 0, 'metrics', 0, 'name'],
      ['resourceMetrics', 0, 'scopeMetrics', 0, 'metrics', 0, 'gauge'],
      ['resourceMetrics', 0, 'scopeMetrics', 0, 'metrics', 0, 'summary'],
      [
        'resourceMetrics',
        0,
        'scopeMetrics',
        0,
        'metrics',
        0,
        'summary',
        'dataPoints',
        0,
        'quantileValues',
        0,
        'quantile',
      ],
      ['resourceMetrics', 0, 'scopeMetrics', 0, 'metrics', 0, 'histogram', 'dataPoints', 0, 'count'],
      ['resourceMetrics', 0, 'scopeMetrics', 0, 'metrics', 0, 'sum', 'aggregationTemporality'],
      POINT,
      ...['timeUnixNano', 'asDouble', 'asInt', 'attributes'].map((k) => [...POINT, k]),
    ],
    valuePath: [...POINT, 'attributes', 0, 'value'],
  },
} as const;

describe.each(Object.entries(otlpTemplates))('OTLP JSON %s', (path, { template, paths, valuePath }) => {
  it('answers 2xx or a 4xx naming the field, the bystander stored, then every tool answers', async () => {
    const requestArb = fc
      .tuple(changesAt(paths as unknown as Path[]), fc.option(anyValue, { nil: undefined }))
      .map(([changes, value]) =>
        mutated(
          template,
          value === undefined ? changes : [...changes, [valuePath as unknown as Path, value]],
        ),
      );
    const refused = mutated(template, [[paths[0] as unknown as Path, 'x']]);
    await fc.assert(
      fc.asyncProperty(requestArb, async (body) => {
        const bytes = jsonBytes(body);
        await sendBesideBystander(
          () => otlp(path, bytes, 'application/json'),
          `${path} ${bytes.toString().slice(0, 300)}`,
        );
      }),
      { numRuns: RUNS, examples: [[template as unknown], [refused]] },
    );
    await everyToolAnswers();
  });
});

// --- OTLP as protobuf -----------------------------------------------------------------------

const bytesArb = fc.oneof(
  fc.constantFrom(Buffer.alloc(0), Buffer.alloc(16), Buffer.alloc(8), NOT_UTF8, Buffer.from('op')),
  fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b)),
  extremeString.map((s) => Buffer.from(s, 'utf8')),
);
/** Ids: mostly random ones of the right length, sometimes anything. */
const idArb = (length: number) =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.uint8Array({ minLength: length, maxLength: length }).map((b) => Buffer.from(b)),
    },
    { weight: 1, arbitrary: bytesArb },
  );
const nanosArb = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 10_000 }).map((ms) => BigInt(T + ms) * 1_000_000n) },
  { weight: 1, arbitrary: fc.constantFrom(0n, 2n ** 64n - 1n, 2n ** 63n) },
  { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) },
);
const protoValue = fc.oneof(
  bytesArb.map((b) => pb.bytes(1, b)),
  extremeNumber.map((x) => pb.double(4, x)),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => pb.varint(3, n)),
  fc.integer({ min: 1, max: 40 }).map((depth) => {
    let v: Buffer = pb.bytes(1, 'leaf');
    for (let i = 0; i < depth; i++) v = pb.message(6, keyValue(1, `k${i}`, v));
    return v;
  }),
);
/** Sometimes the body is cut short or has a byte changed. */
const damaged = (body: Buffer) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(body) },
    { weight: 1, arbitrary: fc.nat({ max: Math.max(0, body.length - 1) }).map((n) => body.subarray(0, n)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.nat({ max: Math.max(0, body.length - 1) }), fc.nat({ max: 255 }))
        .map(([at, byte]) => {
          const copy = Buffer.from(body);
          if (copy.length > 0) copy[at] = byte;
          return copy;
        }),
    },
  );

const protoBodies: Record<string, fc.Arbitrary<Buffer>> = {
  '/v1/traces': fc
    .record({
      traceId: idArb(16),
      spanId: idArb(8),
      name: fc.oneof(
        { weight: 2, arbitrary: fc.constant(Buffer.from('op')) },
        { weight: 1, arbitrary: bytesArb },
      ),
      kind: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 0, max: 5 }) },
        { weight: 1, arbitrary: fc.constantFrom(6, 99, 2 ** 32) },
      ),
      startNs: nanosArb,
      endNs: nanosArb,
      attributes: fc.array(fc.tuple(bytesArb, protoValue), { maxLength: 3 }),
    })
    .map((s) =>
      traceRequestBody([protoSpan({ ...s, extra: s.attributes.map(([k, v]) => keyValue(9, k, v)) })]),
    )
    .chain(damaged),
  '/v1/logs': fc
    .record({
      time: nanosArb,
      severity: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constant(2 ** 40)),
      body: protoValue,
      traceId: idArb(16),
      spanId: idArb(8),
    })
    .map((l) =>
      logsRequestBody([
        [
          logField.time(l.time),
          logField.severity(l.severity),
          logField.body(l.body),
          logField.traceId(l.traceId),
          logField.spanId(l.spanId),
        ],
      ]),
    )
    .chain(damaged),
  '/v1/metrics': fc
    .record({
      name: bytesArb,
      time: nanosArb,
      value: fc.oneof(
        extremeNumber.map((x) => pointField.asDouble(x)),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => pointField.asInt(n)),
      ),
      attribute: protoValue,
    })
    .map((m) =>
      gaugeRequestBody([
        [m.name, [[pointField.time(m.time), m.value, pointField.attribute('k', m.attribute)]]],
      ]),
    )
    .chain(damaged),
};

/** Per signal, a body that is stored (and `[10]`, a field cut short, which is refused). */
const VALID_PROTO: Record<string, Buffer> = {
  '/v1/traces': traceRequestBody([
    protoSpan({
      traceId: Buffer.from(IDS.trace_id, 'hex'),
      spanId: Buffer.from('eee19b7ec3c1b175', 'hex'),
      name: 'op',
      startNs: BigInt(T) * 1_000_000n,
      endNs: BigInt(T + 3) * 1_000_000n,
    }),
  ]),
  '/v1/logs': logsRequestBody([[logField.time(BigInt(T) * 1_000_000n), logField.body(pb.bytes(1, 'm'))]]),
  '/v1/metrics': gaugeRequestBody([
    [IDS.metric, [[pointField.time(BigInt(T) * 1_000_000n), pointField.asDouble(5)]]],
  ]),
};

describe.each(Object.entries(protoBodies))('OTLP protobuf %s', (path, bodies) => {
  it('answers 2xx or a 4xx naming the field, the bystander stored, then every tool answers', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        await sendBesideBystander(
          () => otlp(path, body, 'application/x-protobuf'),
          `${path} ${body.toString('hex').slice(0, 300)}`,
        );
      }),
      { numRuns: RUNS, examples: [[VALID_PROTO[path]!], [Buffer.from([10])]] },
    );
    await everyToolAnswers();
  });
});

// --- debug files ----------------------------------------------------------------------------

const VALID_MAP = '{"version":3,"file":"app.min.js","sources":[],"names":[],"mappings":""}';

/** Mostly what an upload of that kind sends, sometimes anything. */
const mostly = <T>(usual: T, other: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: other });

const debugFileArb = fc.record({
  kind: mostly('sourcemap', fc.constantFrom('sourcemap', 'breakpad', 'dsym', 'so', 'zip', '')),
  platform: mostly('web', fc.constantFrom('web', 'ios', 'android', 'linux')),
  name: fc.oneof(
    fc.constantFrom('app.min.js.map', 'm%ED%A0%80.map', '%00x', '', 'x'.repeat(300)),
    fc.string({ maxLength: 10 }),
  ),
  release: fc.option(fc.constantFrom(IDS.version, '', '%FF'), { nil: undefined }),
  debugId: fc.option(fc.constantFrom('ABCDEF-01', 'zz', '0'.repeat(200)), { nil: undefined }),
  body: fc.oneof(
    fc.constantFrom(
      '{"version":3,"file":"app.min.js","sources":[],"names":[],"mappings":""}',
      '{"version":3,"file":"app.min.js","sources":[],"names":[],"mappings":""}',
      '{"version":3,"file":"app\\ud800.js","sources":["\\udc00"],"names":["f\\ud800"],"mappings":"AAAA"}',
      '{"version":3,"sections":[]}',
      'MODULE Linux x86_64 ABCDEF0123 libapp.so\nFUNC 10 4 0 main\n',
      'MODULE',
      '',
      'not json',
      JSON.stringify(deep(3000, true)),
    ),
    fc.string({ unit: 'binary', maxLength: 50 }),
  ),
});

it('debug files: 2xx or a 4xx naming the parameter, the bystander stored, then every tool answers', async () => {
  await fc.assert(
    fc.asyncProperty(debugFileArb, async (f) => {
      const query = [
        `kind=${encodeURIComponent(f.kind)}`,
        `platform=${f.platform}`,
        `name=${f.name.includes('%') ? f.name : encodeURIComponent(f.name)}`,
        ...(f.release === undefined ? [] : [`release=${f.release}`]),
        ...(f.debugId === undefined ? [] : [`debug_id=${f.debugId}`]),
      ].join('&');
      const body = Buffer.from(f.body, 'utf8');
      await sendBesideBystander(
        () => signed(A, `/ingest/v1/debug-files?${query}`, body),
        `debug file ${query}`,
      );
    }),
    {
      numRuns: RUNS,
      examples: [
        [
          {
            kind: 'sourcemap',
            platform: 'web',
            name: 'a.js.map',
            release: undefined,
            debugId: undefined,
            body: VALID_MAP,
          },
        ],
        [
          {
            kind: 'zip',
            platform: 'web',
            name: 'a.js.map',
            release: undefined,
            debugId: undefined,
            body: VALID_MAP,
          },
        ],
      ],
    },
  );
  await everyToolAnswers();
});

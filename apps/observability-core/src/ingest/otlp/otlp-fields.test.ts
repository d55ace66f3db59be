import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DAY_MS } from '../../storage/time';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import {
  gaugeRequestBody,
  logField,
  logsRequestBody,
  pointField,
  protoSpan,
  traceRequestBody,
} from '../../testing/protobuf-writer';

// An OTLP field whose value the record it maps to would refuse is refused naming the OTLP field,
// by its path in the request, so a client finds it in what it sent. Before, such a value went
// through to the batch validation and the 400 named the record and the batch field instead:
// `{path: "resourceLogs[0].scopeLogs[0].logRecords[0]", reason: "timestamp: Invalid input"}` for a
// bad timeUnixNano, `reason: "value: Too small: ..."` for a histogram's min.

const NOW = Date.now();
const key: TestKey = {
  keyId: 'otlp_fields',
  projectId: 'otlp_fields_p',
  secret: 'otlp-fields-0123',
  active: true,
};
const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);
const T = NOW - 60_000;

const SPAN = 'resourceSpans[0].scopeSpans[0].spans[0]';
const LOG = 'resourceLogs[0].scopeLogs[0].logRecords[0]';
const METRIC = 'resourceMetrics[0].scopeMetrics[0].metrics[0]';
const POINT = `${METRIC}.gauge.dataPoints[0]`;

type Json = Record<string, unknown>;
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const attrs = (n: number) => Array.from({ length: n }, (_, i) => str(`a${i}`, 'v'));

function traces(span: Json = {}, resource: Json[] = [str('service.name', 'svc')]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: resource },
        scopeSpans: [
          {
            spans: [
              {
                traceId: randomBytes(16).toString('hex'),
                spanId: randomBytes(8).toString('hex'),
                name: 'op',
                kind: 2,
                startTimeUnixNano: ns(T),
                endTimeUnixNano: ns(T + 5),
                ...span,
              },
            ],
          },
        ],
      },
    ],
  };
}

function logs(record: Json = {}, resource: Json[] = [str('service.name', 'svc')]) {
  return {
    resourceLogs: [
      {
        resource: { attributes: resource },
        scopeLogs: [
          { logRecords: [{ timeUnixNano: ns(T), severityNumber: 9, body: { stringValue: 'm' }, ...record }] },
        ],
      },
    ],
  };
}

function metrics(metric: Json, resource: Json[] = [str('service.name', 'svc')]) {
  return {
    resourceMetrics: [
      { resource: { attributes: resource }, scopeMetrics: [{ metrics: [{ name: 'm', ...metric }] }] },
    ],
  };
}
const gauge = (point: Json, metric: Json = {}) =>
  metrics({ ...metric, gauge: { dataPoints: [{ timeUnixNano: ns(T), asDouble: 1, ...point }] } });
const histogram = (point: Json, metric: Json = {}) =>
  metrics({
    ...metric,
    histogram: {
      aggregationTemporality: 1,
      dataPoints: [{ timeUnixNano: ns(T), count: '2', sum: 3, min: 1, max: 2, ...point }],
    },
  });

/** Without a delete, a template's field stays: these take it out. */
function without<T extends Json>(body: T, path: (string | number)[]): T {
  const copy = JSON.parse(JSON.stringify(body)) as Json;
  let node = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  delete node[path.at(-1)!];
  return copy as T;
}
const SPAN_AT = ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 0];
const LOG_AT = ['resourceLogs', 0, 'scopeLogs', 0, 'logRecords', 0];
const POINT_AT = ['resourceMetrics', 0, 'scopeMetrics', 0, 'metrics', 0, 'gauge', 'dataPoints', 0];

let h: CoreHarness;
beforeAll(async () => {
  h = await createCoreHarness('core_otlp_fields', NOW, [key]);
});
afterAll(async () => {
  await h.close();
});

const post = (path: string, body: unknown, contentType = 'application/json') =>
  request(h.app)
    .post(path)
    .set({ 'content-type': contentType, 'x-svc-ingest-key': `${key.keyId}:${key.secret}` })
    .send(Buffer.isBuffer(body) ? body : JSON.stringify(body));

async function expectRefused(
  signal: string,
  body: unknown,
  path: string,
  reason: string,
  contentType?: string,
) {
  const res = await post(signal, body, contentType);
  expect({ status: res.status, details: res.body.details }).toEqual({
    status: 400,
    details: [expect.objectContaining({ path, reason: expect.stringContaining(reason) })],
  });
}

const RETENTION_DAYS = 14;
const LOG_RETENTION_DAYS = 90;

describe('OTLP traces: each refusal names the OTLP field', () => {
  it.each([
    ['a traceId that is not hex', { traceId: 'ZZZZ' }, `${SPAN}.traceId`, 'must be 32 hex characters'],
    [
      'a traceId of 30 hex characters',
      { traceId: 'a'.repeat(30) },
      `${SPAN}.traceId`,
      'must be 32 hex characters',
    ],
    ['an all-zero traceId', { traceId: '0'.repeat(32) }, `${SPAN}.traceId`, 'must not be all zeros'],
    ['a spanId that is not hex', { spanId: 'xyz' }, `${SPAN}.spanId`, 'must be 16 hex characters'],
    ['an all-zero spanId', { spanId: '0'.repeat(16) }, `${SPAN}.spanId`, 'must not be all zeros'],
    [
      'a parentSpanId that is not hex',
      { parentSpanId: 'q'.repeat(16) },
      `${SPAN}.parentSpanId`,
      'must be 16 hex',
    ],
    ['an empty name', { name: '' }, `${SPAN}.name`, '1-500 characters'],
    ['a name of 501 characters', { name: 'n'.repeat(501) }, `${SPAN}.name`, '1-500 characters'],
    [
      'a start in 1970',
      { startTimeUnixNano: '1', endTimeUnixNano: '2' },
      `${SPAN}.startTimeUnixNano`,
      'between 2000 and 2100',
    ],
    [
      'a start in 2200',
      { startTimeUnixNano: ns(Date.parse('2200-01-01')) },
      `${SPAN}.startTimeUnixNano`,
      'between 2000 and 2100',
    ],
    [
      'an end 3651 days after the start',
      { endTimeUnixNano: ns(T + 3651 * DAY_MS) },
      `${SPAN}.endTimeUnixNano`,
      'at most 3650 days after startTimeUnixNano',
    ],
    [
      'an end past the span retention',
      { endTimeUnixNano: ns(T + (RETENTION_DAYS + 1) * DAY_MS) },
      `${SPAN}.endTimeUnixNano`,
      `longer than the ${RETENTION_DAYS}-day span retention`,
    ],
    [
      'a start older than the span retention',
      { startTimeUnixNano: ns(NOW - 30 * DAY_MS), endTimeUnixNano: ns(NOW - 30 * DAY_MS + 5) },
      `${SPAN}.startTimeUnixNano`,
      `older than the ${RETENTION_DAYS}-day retention`,
    ],
    [
      'a start two days ahead',
      { startTimeUnixNano: ns(NOW + 2 * DAY_MS), endTimeUnixNano: ns(NOW + 2 * DAY_MS + 5) },
      `${SPAN}.startTimeUnixNano`,
      'more than a day in the future',
    ],
    [
      'an enduser.id of 201 characters',
      { attributes: [str('enduser.id', 'u'.repeat(201))] },
      `${SPAN}.attributes[0].value.stringValue`,
      'longer than 200 characters',
    ],
    [
      'a session.id of 201 characters',
      { attributes: [str('a', 'b'), str('session.id', 's'.repeat(201))] },
      `${SPAN}.attributes[1].value.stringValue`,
      'longer than 200 characters',
    ],
    [
      'a blank enduser.id',
      { attributes: [str('enduser.id', ' \t ')] },
      `${SPAN}.attributes[0].value.stringValue`,
      'blank (enduser.id is kept as an id',
    ],
    [
      'a sampling.rate of 5',
      { attributes: [{ key: 'sampling.rate', value: { doubleValue: 5 } }] },
      `${SPAN}.attributes[0].value.doubleValue`,
      'between 0.000001 and 1',
    ],
    [
      'a tracestate threshold rarer than one in a million',
      { traceState: 'ot=th:fffffffffffff' },
      `${SPAN}.traceState`,
      'below 0.000001',
    ],
    [
      'an attribute key of 201 characters',
      { attributes: [str('k'.repeat(201), 'v')] },
      `${SPAN}.attributes[0].key`,
      'longer than 200 characters',
    ],
    ['65 attributes', { attributes: attrs(65) }, `${SPAN}.attributes`, 'more than 64 attributes'],
    [
      'an attribute value of 4097 characters',
      { attributes: [str('k', 'v'.repeat(4097))] },
      `${SPAN}.attributes[0].value.stringValue`,
      'longer than 4096 characters',
    ],
    [
      'a string of 5000 characters inside an array value',
      { attributes: [{ key: 'k', value: { arrayValue: { values: [{ stringValue: 'v'.repeat(5000) }] } } }] },
      `${SPAN}.attributes[0].value.arrayValue.values[0].stringValue`,
      'longer than 4096 characters',
    ],
    [
      'a map key of 5000 characters inside a map value',
      {
        attributes: [
          {
            key: 'k',
            value: { kvlistValue: { values: [{ key: 'x'.repeat(5000), value: { stringValue: 'v' } }] } },
          },
        ],
      },
      `${SPAN}.attributes[0].value.kvlistValue.values[0].key`,
      'longer than 4096 characters',
    ],
    [
      'an array value longer than 4096 characters as JSON',
      {
        attributes: [
          {
            key: 'k',
            value: {
              arrayValue: { values: Array.from({ length: 100 }, () => ({ stringValue: 'v'.repeat(50) })) },
            },
          },
        ],
      },
      `${SPAN}.attributes[0].value.arrayValue`,
      'longer than 4096 characters',
    ],
  ])('%s', async (_what, span, path, reason) => {
    await expectRefused('/v1/traces', traces(span), path, reason);
  });

  it.each([
    ['traceId', 'required'],
    ['spanId', 'required'],
    ['name', 'required'],
    ['startTimeUnixNano', 'required'],
    ['endTimeUnixNano', 'required'],
  ])('a span without %s', async (field, reason) => {
    await expectRefused('/v1/traces', without(traces(), [...SPAN_AT, field]), `${SPAN}.${field}`, reason);
  });

  it('a service.name of 201 characters names the resource attribute', async () => {
    await expectRefused(
      '/v1/traces',
      traces({}, [str('service.name', 's'.repeat(201))]),
      'resourceSpans[0].resource.attributes[0].value.stringValue',
      'longer than 200 characters',
    );
  });

  it('protobuf: a 15-byte traceId and a start in 1970 are named the same way', async () => {
    const body = traceRequestBody([
      protoSpan({ traceId: randomBytes(15), spanId: randomBytes(8), name: 'p', startNs: 5n, endNs: 6n }),
    ]);
    const res = await post('/v1/traces', body, 'application/x-protobuf');
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: `${SPAN}.traceId`, reason: expect.stringContaining('must be 32 hex characters') },
      { path: `${SPAN}.startTimeUnixNano`, reason: expect.stringContaining('between 2000 and 2100') },
    ]);
  });
});

describe('OTLP logs: each refusal names the OTLP field', () => {
  it.each([
    ['a time in 1970', { timeUnixNano: '1' }, `${LOG}.timeUnixNano`, 'between 2000 and 2100'],
    ['a negative time', { timeUnixNano: '-1' }, `${LOG}.timeUnixNano`, 'between 2000 and 2100'],
    [
      'no time, an observed time in 1970',
      { timeUnixNano: '0', observedTimeUnixNano: '5' },
      `${LOG}.observedTimeUnixNano`,
      'between 2000 and 2100',
    ],
    [
      'a time older than the retention',
      { timeUnixNano: ns(NOW - (LOG_RETENTION_DAYS + 1) * DAY_MS) },
      `${LOG}.timeUnixNano`,
      `older than the ${LOG_RETENTION_DAYS}-day retention`,
    ],
    [
      'an observed time older than the retention',
      { timeUnixNano: '0', observedTimeUnixNano: ns(NOW - (LOG_RETENTION_DAYS + 1) * DAY_MS) },
      `${LOG}.observedTimeUnixNano`,
      `older than the ${LOG_RETENTION_DAYS}-day retention`,
    ],
    ['a traceId that is not hex', { traceId: 'ZZ' }, `${LOG}.traceId`, 'must be 32 hex characters'],
    ['a spanId that is not hex', { spanId: 'Z'.repeat(16) }, `${LOG}.spanId`, 'must be 16 hex characters'],
    [
      'a body of 65537 characters',
      { body: { stringValue: 'm'.repeat(65_537) } },
      `${LOG}.body.stringValue`,
      'longer than 65536 characters',
    ],
    [
      'a user.id of 201 characters',
      { attributes: [str('user.id', 'u'.repeat(201))] },
      `${LOG}.attributes[0].value.stringValue`,
      'longer than 200 characters',
    ],
    [
      'a blank user.id',
      { attributes: [str('user.id', ' ')] },
      `${LOG}.attributes[0].value.stringValue`,
      'blank (user.id is kept as an id',
    ],
    [
      '64 attributes besides service.name',
      { attributes: attrs(64) },
      `${LOG}.attributes`,
      'more than 64 attributes',
    ],
  ])('%s', async (_what, record, path, reason) => {
    await expectRefused('/v1/logs', logs(record), path, reason);
  });

  it('a record without any time', async () => {
    await expectRefused(
      '/v1/logs',
      without(logs(), [...LOG_AT, 'timeUnixNano']),
      `${LOG}.timeUnixNano`,
      'required',
    );
  });

  it('protobuf: a time in 1970 and a 4-byte traceId', async () => {
    const body = logsRequestBody([
      [logField.time(7n), logField.traceId(randomBytes(4)), logField.body(Buffer.from('0a016d', 'hex'))],
    ]);
    const res = await post('/v1/logs', body, 'application/x-protobuf');
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: `${LOG}.timeUnixNano`, reason: expect.stringContaining('between 2000 and 2100') },
      { path: `${LOG}.traceId`, reason: expect.stringContaining('must be 32 hex characters') },
    ]);
  });
});

describe('OTLP metrics: each refusal names the OTLP field', () => {
  const HIST = `${METRIC}.histogram.dataPoints[0]`;
  it.each([
    ['a gauge asDouble of 1e16', gauge({ asDouble: 1e16 }), `${POINT}.asDouble`, '-1e15 .. 1e15'],
    ['a gauge asDouble of NaN', gauge({ asDouble: 'NaN' }), `${POINT}.asDouble`, '-1e15 .. 1e15'],
    [
      'a gauge asInt of 2^53 + 1',
      gauge({ asDouble: undefined, asInt: '9007199254740993' }),
      `${POINT}.asInt`,
      '-1e15 .. 1e15',
    ],
    ['a histogram min of -1e308', histogram({ min: -1e308 }), `${HIST}.min`, '-1e15 .. 1e15'],
    ['a histogram max of Infinity', histogram({ max: 'Infinity' }), `${HIST}.max`, '-1e15 .. 1e15'],
    ['a histogram sum of 1e300', histogram({ sum: 1e300 }), `${HIST}.sum`, '-1e15 .. 1e15'],
    ['a histogram count of -1', histogram({ count: '-1' }), `${HIST}.count`, '0 .. 1e15'],
    ['a histogram count of 2e15', histogram({ count: '2000000000000000' }), `${HIST}.count`, '0 .. 1e15'],
    [
      'a summary quantile value of 1e20',
      metrics({
        summary: {
          dataPoints: [
            { timeUnixNano: ns(T), count: '1', sum: 1, quantileValues: [{ quantile: 0.5, value: 1e20 }] },
          ],
        },
      }),
      `${METRIC}.summary.dataPoints[0].quantileValues[0].value`,
      '-1e15 .. 1e15',
    ],
    ['a point time in 1970', gauge({ timeUnixNano: '5' }), `${POINT}.timeUnixNano`, 'between 2000 and 2100'],
    [
      'a point time older than the retention',
      gauge({ timeUnixNano: ns(NOW - (LOG_RETENTION_DAYS + 1) * DAY_MS) }),
      `${POINT}.timeUnixNano`,
      'older than the 90-day retention',
    ],
    ['a name of 201 characters', gauge({}, { name: 'n'.repeat(201) }), `${METRIC}.name`, '1-200 characters'],
    ['an empty name', gauge({}, { name: '' }), `${METRIC}.name`, '1-200 characters'],
    [
      'a histogram name that is too long with its suffix',
      histogram({}, { name: 'n'.repeat(195) }),
      `${METRIC}.name`,
      'with the suffix .count',
    ],
    [
      'a unit of 51 characters',
      gauge({}, { unit: 'u'.repeat(51) }),
      `${METRIC}.unit`,
      'longer than 50 characters',
    ],
    [
      'a session.id of 201 characters',
      gauge({ attributes: [str('session.id', 's'.repeat(201))] }),
      `${POINT}.attributes[0].value.stringValue`,
      'longer than 200 characters',
    ],
    [
      '63 attributes besides service.name and the temporality',
      {
        resourceMetrics: [
          {
            resource: { attributes: [str('service.name', 'svc')] },
            scopeMetrics: [
              {
                metrics: [
                  {
                    name: 'm',
                    sum: {
                      aggregationTemporality: 2,
                      dataPoints: [{ timeUnixNano: ns(T), asDouble: 1, attributes: attrs(63) }],
                    },
                  },
                ],
              },
            ],
          },
        ],
      },
      `${METRIC}.sum.dataPoints[0].attributes`,
      'more than 64 attributes',
    ],
  ])('%s', async (_what, body, path, reason) => {
    await expectRefused('/v1/metrics', body, path, reason);
  });

  it('a point without a time', async () => {
    await expectRefused(
      '/v1/metrics',
      without(gauge({}), [...POINT_AT, 'timeUnixNano']),
      `${POINT}.timeUnixNano`,
      'required',
    );
  });

  it('a service.version of 101 characters names the resource attribute', async () => {
    await expectRefused(
      '/v1/metrics',
      metrics({ gauge: { dataPoints: [{ timeUnixNano: ns(T), asDouble: 1 }] } }, [
        str('service.version', 'v'.repeat(101)),
      ]),
      'resourceMetrics[0].resource.attributes[0].value.stringValue',
      'longer than 100 characters',
    );
  });

  it('protobuf: an asDouble of 1e300', async () => {
    const body = gaugeRequestBody([
      ['m', [[pointField.time(BigInt(T) * 1_000_000n), pointField.asDouble(1e300)]]],
    ]);
    await expectRefused('/v1/metrics', body, `${POINT}.asDouble`, '-1e15 .. 1e15', 'application/x-protobuf');
  });
});

describe('valid OTLP at the bounds is stored', () => {
  it('names of 500 and 200 characters, ids, times and values at their limits', async () => {
    const traceId = randomBytes(16).toString('hex');
    const span = traces(
      {
        traceId: traceId.toUpperCase(),
        name: 'n'.repeat(500),
        attributes: [...attrs(63), str('enduser.id', 'u'.repeat(200))],
      },
      [str('service.name', 's'.repeat(200))],
    );
    expect((await post('/v1/traces', span)).status).toBe(200);
    const log = logs({
      timeUnixNano: '0',
      observedTimeUnixNano: ns(T),
      body: { stringValue: 'm'.repeat(65_536) },
      attributes: attrs(63),
    });
    expect((await post('/v1/logs', log)).status).toBe(200);
    const metric = histogram(
      { count: '1000000000000000', min: -1e15, max: 1e15 },
      { name: 'n'.repeat(194), unit: 'u'.repeat(50) },
    );
    expect((await post('/v1/metrics', metric)).status).toBe(200);
    const [row] = await h.ch.query<{ n: string }>(
      'SELECT count() AS n FROM spans WHERE project_id = {p:String} AND trace_id = {t:String}',
      { p: key.projectId, t: traceId },
    );
    expect(row?.n).toBe('1');
  });
});

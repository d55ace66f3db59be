import { allTools } from '@svc/tool-catalog';
import request from 'supertest';
import { type CoreHarness, createCoreHarness, type TestKey } from '../testing/core-harness';

// Attribute and property keys are the client's: `constructor`, `toString`, `hasOwnProperty`,
// `prototype` are data like any other key. Before, zod's z.record refused an object with an own
// `constructor` key: a signed batch with such event properties or metric attributes answered 400
// "expected record, received object", and a span or log line with such an attribute (stored by
// the fast path and by OTLP) made log.recent, log.search, trace.get, apm.search... fail the
// gateway's output check (500 "invalid result") for the project's whole retention. A key
// `__proto__` is dropped, never a prototype.

const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const key: TestKey = {
  keyId: 'record_keys_key',
  projectId: 'record_keys',
  secret: 'record-keys-secret-0123',
  active: true,
};
const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();
const ns = (secondsAgo: number) => String(BigInt(NOW - secondsAgo * 1000) * 1_000_000n);

/** Keys every JavaScript object inherits, each given a value of its own. */
const KEYS = ['constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf', 'isPrototypeOf'];
const attributes = Object.fromEntries(KEYS.map((k) => [k, `${k} value`]));
/** The same map with an own `__proto__` key too, as JSON text can carry one. */
const withProto = (map: Record<string, unknown>) => ({
  ...JSON.parse('{"__proto__":"proto value"}'),
  ...map,
});

const USER = 'u_keys';
const SESSION = 's_keys';
const BATCH_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const OTLP_TRACE = '5bf92f3577b34da6a3ce929d0e0e4737';
const PROTO_TRACE = '6bf92f3577b34da6a3ce929d0e0e4738';
const properties = {
  ...Object.fromEntries(KEYS.map((k, i) => [k, i])),
  nested: { constructor: 'inner', toString: ['x'] },
};

/** A log line, a span and a metric with `map` as attributes, and an event with it as properties. */
function batchOf(map: Record<string, unknown>, message: string, spanId: string, trace: string) {
  return {
    logs: [
      {
        timestamp: at(60),
        level: 'ERROR',
        message,
        source: 'backend',
        user_id: USER,
        session_id: SESSION,
        attributes: map,
      },
    ],
    spans: [
      {
        trace_id: trace,
        span_id: spanId,
        kind: 'server',
        status: 'ok',
        operation: 'GET /keys',
        start_time: at(60),
        duration_ms: 12,
        user_id: USER,
        attributes: map,
      },
    ],
  };
}

/** The batches sent, each on its own (so that one refused does not hide what the others do). */
const BATCHES = {
  'logs and spans': batchOf(attributes, 'keyed batch log', '00f067aa0ba902b7', BATCH_TRACE),
  'logs and spans with a __proto__ key': batchOf(
    withProto(attributes),
    'keyed batch log with __proto__',
    '00f067aa0ba902b8',
    PROTO_TRACE,
  ),
  metrics: {
    metrics: [
      {
        timestamp: at(60),
        name: 'keyed_metric',
        value: 3,
        user_id: USER,
        session_id: SESSION,
        attributes: withProto(attributes),
      },
    ],
  },
  events: {
    events: [
      {
        timestamp: at(60),
        event_name: 'keyed_event',
        user_id: USER,
        session_id: SESSION,
        properties: withProto(properties),
      },
    ],
  },
};

const otlpAttributes = [
  ...['__proto__', ...KEYS].map((k) => ({ key: k, value: { stringValue: `${k} value` } })),
  {
    key: 'map',
    value: { kvlistValue: { values: [{ key: 'constructor', value: { stringValue: 'in map' } }] } },
  },
];
const otlpTraces = {
  resourceSpans: [
    {
      scopeSpans: [
        {
          spans: [
            {
              traceId: OTLP_TRACE,
              spanId: '10f067aa0ba902b7',
              name: 'GET /otlp-keys',
              kind: 2,
              startTimeUnixNano: ns(50),
              endTimeUnixNano: ns(49),
              attributes: otlpAttributes,
            },
          ],
        },
      ],
    },
  ],
};
const otlpLogs = {
  resourceLogs: [
    {
      scopeLogs: [
        {
          logRecords: [
            {
              timeUnixNano: ns(50),
              severityNumber: 17,
              body: { stringValue: 'keyed otlp log' },
              attributes: [
                ...otlpAttributes,
                { key: 'user.id', value: { stringValue: USER } },
                { key: 'session.id', value: { stringValue: SESSION } },
              ],
            },
          ],
        },
      ],
    },
  ],
};
const otlpMetrics = {
  resourceMetrics: [
    {
      scopeMetrics: [
        {
          metrics: [
            {
              name: 'keyed_otlp_metric',
              gauge: { dataPoints: [{ timeUnixNano: ns(50), asDouble: 4, attributes: otlpAttributes }] },
            },
          ],
        },
      ],
    },
  ],
};

/** What comes back for the maps above: every key but `__proto__`, with its value. */
const expectedAttributes = attributes;
const expectedOtlpAttributes = { ...attributes, map: '{"constructor":"in map"}' };

let h: CoreHarness;
beforeAll(async () => {
  h = await createCoreHarness('core_record_keys', NOW, [key]);
});
afterAll(async () => {
  await h.close();
});

const otlp = (path: string, body: unknown) =>
  request(h.app)
    .post(path)
    .set({ 'content-type': 'application/json', 'x-svc-ingest-key': `${key.keyId}:${key.secret}` })
    .send(JSON.stringify(body));

/** A core tool's answer after the gateway's check (its output schema over the JSON it sent). */
async function checkedAnswer(tool: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await h.callTool(key.projectId, tool, input);
  expect({ tool, status: res.status, text: res.status === 200 ? '' : res.text }).toEqual({
    tool,
    status: 200,
    text: '',
  });
  const definition = allTools.find((t) => t.name === tool)!;
  const checked = definition.output.safeParse(JSON.parse(res.text));
  expect({ tool, issues: checked.success ? [] : checked.error.issues.slice(0, 3) }).toEqual({
    tool,
    issues: [],
  });
  return checked.data as Record<string, unknown>;
}

type Item = Record<string, unknown>;
const itemsOf = (answer: Record<string, unknown>) => answer.items as Item[];
const withMessage = (items: Item[], message: string) => items.find((i) => i.message === message);

describe('keys named like Object.prototype members', () => {
  it('are accepted by the signed batch (attributes and event properties) and by OTLP', async () => {
    const answers: Record<string, [number, string]> = {};
    for (const [what, body] of Object.entries(BATCHES)) {
      const res = await h.ingest(key, body);
      answers[what] = [res.status, res.status === 200 ? '' : res.text];
    }
    for (const [path, body] of [
      ['/v1/traces', otlpTraces],
      ['/v1/logs', otlpLogs],
      ['/v1/metrics', otlpMetrics],
    ] as const) {
      const res = await otlp(path, body);
      answers[path] = [res.status, res.status === 200 ? '' : res.text];
    }
    expect(answers).toEqual(Object.fromEntries(Object.keys(answers).map((k) => [k, [200, '']])));
  });

  it('come back from the log tools (batch and OTLP lines)', async () => {
    for (const [tool, input] of [
      ['log.recent', {}],
      ['log.search', { search: 'keyed' }],
      ['log.by_user', { user_id: USER }],
      ['log.by_session', { session_id: SESSION }],
    ] as const) {
      const items = itemsOf(await checkedAnswer(tool, input));
      expect({ tool, attributes: withMessage(items, 'keyed batch log')?.attributes }).toEqual({
        tool,
        attributes: expectedAttributes,
      });
      expect({ tool, attributes: withMessage(items, 'keyed batch log with __proto__')?.attributes }).toEqual({
        tool,
        attributes: expectedAttributes,
      });
      expect({ tool, attributes: withMessage(items, 'keyed otlp log')?.attributes }).toEqual({
        tool,
        attributes: { ...expectedOtlpAttributes, 'user.id': USER, 'session.id': SESSION },
      });
    }
  });

  it('come back from trace.get (batch and OTLP spans)', async () => {
    for (const [trace, expected] of [
      [BATCH_TRACE, expectedAttributes],
      [PROTO_TRACE, expectedAttributes],
      [OTLP_TRACE, expectedOtlpAttributes],
    ] as const) {
      const answer = await checkedAnswer('trace.get', { trace_id: trace });
      const [root] = answer.spans as Item[];
      expect(root?.attributes).toEqual(expected);
    }
  });

  it('come back from apm.search (batch and OTLP metrics)', async () => {
    const batchItems = itemsOf(await checkedAnswer('apm.search', { name: 'keyed_metric' }));
    expect(batchItems.map((i) => i.attributes)).toEqual([expectedAttributes]);
    const otlpItems = itemsOf(await checkedAnswer('apm.search', { name: 'keyed_otlp_metric' }));
    expect(otlpItems.map((i) => i.attributes)).toEqual([expectedOtlpAttributes]);
  });

  it('come back as event properties from track.recent, user.detail and session.detail', async () => {
    const [event] = itemsOf(await checkedAnswer('track.recent', { name: 'keyed_event' }));
    expect(event?.properties).toEqual(properties);
    for (const [tool, input] of [
      ['user.detail', { user_id: USER }],
      ['session.detail', { session_id: SESSION }],
    ] as const) {
      const answer = await checkedAnswer(tool, input);
      const events = (answer.events as { items: Item[] }).items;
      expect({ tool, properties: events.map((e) => e.properties) }).toEqual({
        tool,
        properties: [properties],
      });
      const logs = (answer.logs as { items: Item[] }).items;
      expect({ tool, attributes: withMessage(logs, 'keyed batch log')?.attributes }).toEqual({
        tool,
        attributes: expectedAttributes,
      });
    }
  });

  it('and a `__proto__` key is dropped: no answer has a prototype other than Object.prototype', async () => {
    const items = itemsOf(await checkedAnswer('log.recent', {}));
    for (const item of items) {
      const map = item.attributes as Record<string, unknown>;
      expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
      expect(Object.hasOwn(map, '__proto__')).toBe(false);
    }
  });
});

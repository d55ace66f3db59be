import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type InProcessStack, startInProcessStack } from '../testing/in-process-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, callBoth, callRest, connectMcp, newProject, setOrgCapability, signedPost } from './support';

// Keys a client chose are data, whatever their name, from ingest to the client's answer. Before,
// a span or log line stored with an attribute named `constructor` (by a signed batch or OTLP)
// made the gateway's output check refuse log.recent, log.search and trace.get for the project:
// 500 "invalid result", over REST and MCP, for the whole retention; and metrics and events with
// such keys were refused at ingest (400 "expected record, received object").

const KEYS = ['constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf'];
const attributes = Object.fromEntries(KEYS.map((k) => [k, `${k} value`]));
const TRACE = '7bf92f3577b34da6a3ce929d0e0e4731';
const OTLP_TRACE = '8bf92f3577b34da6a3ce929d0e0e4732';
const USER = 'u_record_keys';
const at = () => new Date(Date.now() - 30_000).toISOString();
const ns = () => String(BigInt(Date.now() - 30_000) * 1_000_000n);

let stack: InProcessStack;
let project: { project_id: string; token: string; key: { key_id: string; secret: string } };
let mcp: Client;

/** A signed batch, or an OTLP request with the key in its header (as OpenTelemetry exporters send it). */
async function ingest(path: string, body: unknown): Promise<void> {
  const text = JSON.stringify(body);
  const res = path.startsWith('/ingest/')
    ? await signedPost(stack.urls.core, project.key, path, text)
    : await fetch(new URL(path, stack.urls.core), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-svc-ingest-key': `${project.key.key_id}:${project.key.secret}`,
        },
        body: text,
      });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

beforeAll(async () => {
  stack = await startInProcessStack({ name: 'record_keys_e2e' });
  await setOrgCapability(stack, 'vis_trace', true);
  project = await newProject({ url: stack.urls.identity, secret: stack.secret }, 'Keys', stack.orgId);
  mcp = await connectMcp(`${stack.urls.gateway}/mcp`, bearer(project.token));
  await ingest('/ingest/v1/batch', {
    logs: [{ timestamp: at(), level: 'ERROR', message: 'keyed line', source: 'backend', attributes }],
    spans: [
      {
        trace_id: TRACE,
        span_id: '00f067aa0ba902b7',
        kind: 'server',
        status: 'ok',
        operation: 'GET /keys',
        start_time: at(),
        duration_ms: 5,
        attributes,
      },
    ],
  });
  await ingest('/v1/traces', {
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
                startTimeUnixNano: ns(),
                endTimeUnixNano: ns(),
                attributes: KEYS.map((k) => ({ key: k, value: { stringValue: `${k} value` } })),
              },
            ],
          },
        ],
      },
    ],
  });
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await stack?.close();
});

describe('a stored attribute named constructor', () => {
  it('comes back from log.recent and log.search, 200 over REST and MCP', async () => {
    for (const [tool, args] of [
      ['log.recent', {}],
      ['log.search', { search: 'keyed' }],
    ] as const) {
      const rest = await callRest(stack.urls.gateway, tool, args, bearer(project.token));
      expect({ tool, status: rest.status, text: rest.status === 200 ? '' : rest.text }).toEqual({
        tool,
        status: 200,
        text: '',
      });
      const answers = await callBoth(stack.urls.gateway, mcp, bearer(project.token), tool, args);
      for (const answer of [answers.rest, answers.mcp]) {
        const items = answer.items as { attributes: Record<string, string> }[];
        expect(items.map((i) => i.attributes)).toEqual([attributes]);
      }
    }
  });

  it('comes back from trace.get for a batch span and an OTLP span, 200 over REST and MCP', async () => {
    for (const trace of [TRACE, OTLP_TRACE]) {
      const answers = await callBoth(stack.urls.gateway, mcp, bearer(project.token), 'trace.get', {
        trace_id: trace,
      });
      for (const answer of [answers.rest, answers.mcp]) {
        const spans = answer.spans as { attributes: Record<string, string> }[];
        expect(spans.map((s) => s.attributes)).toEqual([attributes]);
      }
    }
  });

  it('and metric attributes and event properties with such keys are stored and come back', async () => {
    await ingest('/ingest/v1/batch', {
      metrics: [{ timestamp: at(), name: 'keyed_metric', value: 2, attributes }],
      events: [{ timestamp: at(), event_name: 'keyed_event', user_id: USER, properties: attributes }],
    });
    const metrics = await callBoth(stack.urls.gateway, mcp, bearer(project.token), 'apm.search', {
      name: 'keyed_metric',
    });
    const events = await callBoth(stack.urls.gateway, mcp, bearer(project.token), 'track.recent', {
      name: 'keyed_event',
    });
    for (const transport of ['rest', 'mcp'] as const) {
      expect((metrics[transport].items as { attributes: unknown }[]).map((i) => i.attributes)).toEqual([
        attributes,
      ]);
      expect((events[transport].items as { properties: unknown }[]).map((i) => i.properties)).toEqual([
        attributes,
      ]);
    }
  });
});

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { reportedRatio } from './expected';
import {
  adminOf,
  bearer,
  callBothAcrossWindow,
  callRest,
  connectMcp,
  ingestBatch,
  newProject,
} from './support';

// analytics.funnel and analytics.dimensions on the whole stack, through MCP and REST, on a project
// of their own. Events sit whole hours before NOW, far from every window edge, so the answers
// worked out by hand below do not depend on when the calls land.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.now();
const OPEN = 'app_open';
const VIEW = 'view_item';
const CART = 'add_to_cart';
const BUY = 'purchase';

let stack: SpawnedStack;
let token: string;
let mcp: Client;

/** user, platform, app_version, properties, [event, hours back]. */
const USERS: [string, string, string, Record<string, string>, [string, number][]][] = [
  [
    'u1',
    'ios',
    '3.1.0',
    { utm_source: 'ads' },
    [
      [OPEN, 10],
      [VIEW, 9],
      [CART, 8],
      [BUY, 7],
    ],
  ], // all 4
  [
    'u2',
    'android',
    '3.1.0',
    {},
    [
      [OPEN, 10],
      [VIEW, 9],
    ],
  ], // 2
  [
    'u3',
    'ios',
    '3.1.0',
    {},
    [
      [VIEW, 10],
      [OPEN, 9],
    ],
  ], // 1: viewed before opening
  [
    'u4',
    'ios',
    '3.1.0',
    {},
    [
      [OPEN, 30],
      [VIEW, 3],
    ],
  ], // 1: 27 h apart (2 within 48 h)
  [
    'u5',
    'android',
    '3.1.0',
    {},
    [
      [OPEN, 20 * 24],
      [VIEW, 1],
    ],
  ], // 0: opened before the 14 days
  // 3: three events in the same millisecond count in step order.
  [
    'u6',
    'web',
    '3.2.0',
    { utm_source: 'newsletter', utm_campaign: 'spring' },
    [
      [CART, 5],
      [VIEW, 5],
      [OPEN, 5],
    ],
  ],
];
const events = USERS.flatMap(([user_id, platform, app_version, properties, list]) =>
  list.map(([event_name, back]) => ({
    timestamp: new Date(NOW - back * HOUR).toISOString(),
    event_name,
    user_id,
    platform,
    app_version,
    properties,
  })),
);

beforeAll(async () => {
  // The test reads its own project's records: the demo beside them needs to exist, not be big.
  stack = await spawnStack({ env: { SVC_DEMO_SIZE: '0.05' } });
  const project = await newProject(adminOf(stack), 'funnel');
  token = project.token;
  const res = await ingestBatch(stack.ready.urls.core, project.key, { events });
  if (!res.ok) throw new Error(`ingest: ${res.status} ${await res.text()}`);
  mcp = await connectMcp(stack.ready.urls.mcp, bearer(token), 'e2e-funnel');
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await stack?.dispose();
});

/** Calls over REST and MCP; both must answer, the same apart from the moving window (left out). */
async function both(tool: string, args: Record<string, unknown>) {
  return (await callBothAcrossWindow(stack.ready.urls.gateway, mcp, bearer(token), tool, args)).withoutWindow;
}

const STEPS = [OPEN, VIEW, CART, BUY];
function funnelOf(steps: string[], users: number[]) {
  const ratio = reportedRatio;
  return {
    steps: steps.map((event_name, i) => ({
      step: i + 1,
      event_name,
      users: users[i],
      conversion_from_previous: ratio(users[i]!, users[Math.max(0, i - 1)]!),
      conversion_from_first: ratio(users[i]!, users[0]!),
    })),
    overall_conversion: ratio(users[users.length - 1]!, users[0]!),
  };
}

describe('analytics.funnel and analytics.dimensions end to end', () => {
  it('are listed over MCP, read-only, without project_id', async () => {
    const { tools } = await mcp.listTools();
    const mine = tools.filter((t) => ['analytics.funnel', 'analytics.dimensions'].includes(t.name));
    expect(mine).toHaveLength(2);
    for (const t of mine) {
      expect(t.annotations?.readOnlyHint).toBe(true);
      expect(JSON.stringify(t.inputSchema)).not.toContain('project_id');
    }
  });

  it('analytics.funnel: users per step worked out by hand, window and filters', async () => {
    const body = await both('analytics.funnel', { steps: STEPS });
    expect(body).toEqual({ window_hours: 24, ...funnelOf(STEPS, [5, 3, 2, 1]) });
    const window = (
      await callRest(stack.ready.urls.gateway, 'analytics.funnel', { steps: STEPS }, bearer(token))
    ).body.window as { from: string; to: string };
    expect(Date.parse(window.to) - Date.parse(window.from)).toBe(14 * DAY);
    expect(await both('analytics.funnel', { steps: STEPS, window_hours: 48 })).toEqual({
      window_hours: 48,
      ...funnelOf(STEPS, [5, 4, 2, 1]),
    });
    expect(await both('analytics.funnel', { steps: STEPS, platform: 'ios' })).toEqual({
      window_hours: 24,
      ...funnelOf(STEPS, [3, 1, 1, 1]),
    });
    expect(await both('analytics.funnel', { steps: STEPS, utm_source: 'newsletter' })).toEqual({
      window_hours: 24,
      ...funnelOf(STEPS, [1, 1, 1, 0]),
    });
    expect(await both('analytics.funnel', { steps: [VIEW, OPEN], days: 1, app_version: '9.9' })).toEqual({
      window_hours: 24,
      ...funnelOf([VIEW, OPEN], [0, 0]),
    });
  });

  it('analytics.dimensions: the values of every filter with event counts, by count desc', async () => {
    const body = await both('analytics.dimensions', {});
    expect(body.dimensions).toEqual({
      platform: {
        values: [
          { value: 'ios', count: 8 },
          { value: 'android', count: 4 },
          { value: 'web', count: 3 },
        ],
        has_more: false,
      },
      app_version: {
        values: [
          { value: '3.1.0', count: 12 },
          { value: '3.2.0', count: 3 },
        ],
        has_more: false,
      },
      utm_source: {
        values: [
          { value: 'ads', count: 4 },
          { value: 'newsletter', count: 3 },
        ],
        has_more: false,
      },
      utm_medium: { values: [], has_more: false },
      utm_campaign: { values: [{ value: 'spring', count: 3 }], has_more: false },
    });
  });

  it('refuses 1 or 11 steps and unknown fields with 400 (REST) and isError (MCP)', async () => {
    for (const [tool, args] of [
      ['analytics.funnel', { steps: [OPEN] }],
      ['analytics.funnel', { steps: Array.from({ length: 11 }, (_, i) => `e${i}`) }],
      ['analytics.funnel', { steps: STEPS, window_hours: 0 }],
      ['analytics.dimensions', { platform: 'ios' }],
    ] as const) {
      const r = await callRest(stack.ready.urls.gateway, tool, args, bearer(token));
      expect(r.status).toBe(400);
      expect((await mcp.callTool({ name: tool, arguments: args })).isError).toBe(true);
    }
  });
});

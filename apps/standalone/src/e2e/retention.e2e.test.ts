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

// analytics.retention and analytics.cohorts on the whole stack, through MCP and REST. Every event
// is a whole number of days before NOW, so a user's day offsets and eligibility do not depend on
// the time of day the test runs: an event k days back is on today - k (UTC).

const DAY = 86_400_000;
const NOW = Date.now();

let stack: SpawnedStack;
let token: string;
let mcp: Client;

/** user -> days back of each event, platform, utm_source. */
const USERS: [string, number[], string, string | undefined][] = [
  ['u1', [10, 9, 7], 'ios', undefined], // offsets 0, 1, 3
  ['u2', [10, 8], 'ios', undefined], // offsets 0, 2
  ['u3', [2, 1, 0], 'ios', undefined], // offsets 0, 1, 2; day 3 not reached yet
  ['u5', [3, 2], 'android', 'ads'], // offsets 0, 1
  ['u4', [40, 5], 'ios', undefined], // first seen before the 30-day window: not in the cohort
];
const events = USERS.flatMap(([user_id, back, platform, source]) =>
  back.map((k) => ({
    timestamp: new Date(NOW - k * DAY).toISOString(),
    event_name: 'app_open',
    user_id,
    platform,
    properties: source ? { utm_source: source } : {},
  })),
);

beforeAll(async () => {
  // The test reads its own project's records: the demo beside them needs to exist, not be big.
  stack = await spawnStack({ env: { SVC_DEMO_SIZE: '0.05' } });
  const project = await newProject(adminOf(stack), 'retention');
  token = project.token;
  const res = await ingestBatch(stack.ready.urls.core, project.key, { events });
  if (!res.ok) throw new Error(`ingest: ${res.status} ${await res.text()}`);
  mcp = await connectMcp(stack.ready.urls.mcp, bearer(token), 'e2e-retention');
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await stack?.dispose();
});

/** Calls over REST and MCP; both must answer, and the same apart from the moving window. */
async function both(tool: string, args: Record<string, unknown>) {
  return (await callBothAcrossWindow(stack.ready.urls.gateway, mcp, bearer(token), tool, args)).rest;
}

const col = (day: number, retained: number, eligible: number) => ({
  day,
  retained,
  eligible,
  rate: reportedRatio(retained, eligible),
});

describe('retention and cohorts end to end', () => {
  it('analytics.retention: cohort size and day offsets worked out by hand', async () => {
    const body = await both('analytics.retention', { max_day: 3 });
    expect(body).toMatchObject({ max_day: 3, cohort_size: 4 });
    expect(body.days).toEqual([col(0, 4, 4), col(1, 3, 4), col(2, 2, 4), col(3, 1, 3)]);
    const android = await both('analytics.retention', { max_day: 2, platform: 'android' });
    expect(android).toMatchObject({ cohort_size: 1, days: [col(0, 1, 1), col(1, 1, 1), col(2, 0, 1)] });
    const ads = await both('analytics.retention', { max_day: 2, utm_source: 'ads' });
    expect(ads.days).toEqual(android.days);
    const none = await both('analytics.retention', { max_day: 1, utm_campaign: 'none' });
    expect(none).toMatchObject({ cohort_size: 0, days: [col(0, 0, 0), col(1, 0, 0)] });
  });

  it('analytics.cohorts: a row per day, ISO week or month, sizes adding up to the cohort', async () => {
    const daily = await both('analytics.cohorts', { max_day: 3 });
    const rows = daily.cohorts as { cohort: string; size: number; days: unknown[] }[];
    expect(rows).toHaveLength(31);
    const dateBack = (k: number) => new Date(NOW - k * DAY).toISOString().slice(0, 10);
    const sized = rows.filter((r) => r.size > 0);
    expect(sized.map((r) => [r.cohort, r.size])).toEqual([
      [dateBack(10), 2],
      [dateBack(3), 1],
      [dateBack(2), 1],
    ]);
    expect(sized[0]!.days).toEqual([col(0, 2, 2), col(1, 1, 2), col(2, 1, 2), col(3, 1, 2)]);
    expect(sized[2]!.days).toEqual([col(0, 1, 1), col(1, 1, 1), col(2, 1, 1), col(3, 0, 0)]);
    for (const granularity of ['week', 'month']) {
      const body = await both('analytics.cohorts', { granularity, max_day: 1 });
      const grouped = body.cohorts as { cohort: string; size: number }[];
      expect(grouped.reduce((s, r) => s + r.size, 0)).toBe(4);
      for (const r of grouped) {
        const start = new Date(`${r.cohort}T00:00:00Z`);
        if (granularity === 'week') expect(start.getUTCDay()).toBe(1);
        else expect(start.getUTCDate()).toBe(1);
      }
    }
  });

  it('refuses max_day outside 0..90 and an unknown granularity with 400 (REST) and isError (MCP)', async () => {
    for (const [tool, args] of [
      ['analytics.retention', { max_day: 91 }],
      ['analytics.retention', { max_day: -1 }],
      ['analytics.cohorts', { granularity: 'year' }],
      ['analytics.cohorts', { days: 366 }],
    ] as const) {
      const r = await callRest(stack.ready.urls.gateway, tool, args, bearer(token));
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_input');
      expect((await mcp.callTool({ name: tool, arguments: args })).isError).toBe(true);
    }
  });
});

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import {
  adminOf,
  bearer,
  callBothAcrossWindow,
  callRest,
  connectMcp,
  ingestBatch,
  newProject,
} from './support';

// user.detail, session.detail, track.recent, track.stats and feedback.search on the whole stack as
// `pnpm start` runs it, through MCP (official SDK client) and REST. The records go into a project
// of their own, so every expected answer is computed here from exactly what was ingested.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.now();
const iso = (t: number) => new Date(t).toISOString();

let stack: SpawnedStack;
let token: string;
let mcp: Client;

const rest = (tool: string, body: unknown) => callRest(stack.ready.urls.gateway, tool, body, bearer(token));

/** Calls over REST and MCP; both must answer, and the same. */
async function both(tool: string, args: Record<string, unknown>) {
  return (await callBothAcrossWindow(stack.ready.urls.gateway, mcp, bearer(token), tool, args)).rest;
}

const BIDI = '\u202Eevil\u202C\u200B';
const events = Array.from({ length: 30 }, (_, i) => ({
  timestamp: iso(NOW - (i * 11 + 1) * HOUR),
  event_name: ['app_open', 'view_item', 'purchase'][i % 3]!,
  user_id: `user_${i % 4}`,
  session_id: `sess_${i % 4}`,
  platform: i % 2 ? 'ios' : 'android',
  app_version: i % 5 ? '2.0.0' : '1.9.0',
  properties: { plan: i % 4 ? 'free' : 'Pro 50%', i },
}));
const feedback = [
  ...Array.from({ length: 6 }, (_, i) => ({
    feedback_id: `fb_${i}`,
    timestamp: iso(NOW - (i * 7 + 2) * HOUR),
    user_id: `user_${i % 2}`,
    session_id: `sess_${i % 2}`,
    message: i % 2 ? 'Checkout is SLOW' : 'love the 50% sale',
    rating: i,
  })),
  { feedback_id: 'fb_evil', timestamp: iso(NOW - 3 * HOUR), user_id: 'user_3', message: `hi ${BIDI} there` },
];
const logs = Array.from({ length: 12 }, (_, i) => ({
  timestamp: iso(NOW - (i * 5 + 3) * HOUR),
  level: 'INFO',
  message: `log line ${i}`,
  source: 'device',
  user_id: `user_${i % 2}`,
  session_id: `sess_${i % 2}`,
  platform: 'ios',
  app_version: '2.0.0',
}));
const crashes = [
  {
    event_id: 'crash_1',
    timestamp: iso(NOW - 4 * HOUR),
    error_type: 'SIGSEGV',
    message: 'segfault in render',
    frames: [{ function: 'render', file: 'view.cc', line: 10, in_app: true }],
    breadcrumbs: [],
    signature: '00000000000000aa',
    platform: 'ios',
    app_version: '2.0.0',
    device_os: 'iOS 17',
    user_id: 'user_0',
    session_id: 'sess_0',
  },
];
const sessions = [
  {
    session_id: 'sess_0',
    user_id: 'user_0',
    started_at: iso(NOW - 400 * HOUR),
    ended_at: iso(NOW - HOUR),
    status: 'crashed',
    platform: 'ios',
    app_version: '2.0.0',
  },
];

beforeAll(async () => {
  // The test reads its own project's records: the demo beside them needs to exist, not be big.
  stack = await spawnStack({ env: { SVC_DEMO_SIZE: '0.05' } });
  const project = await newProject(adminOf(stack), 'users-analytics');
  token = project.token;
  const res = await ingestBatch(stack.ready.urls.core, project.key, {
    events,
    feedback,
    logs,
    crashes,
    sessions,
  });
  if (!res.ok) throw new Error(`ingest: ${res.status} ${await res.text()}`);
  mcp = await connectMcp(stack.ready.urls.mcp, bearer(token), 'e2e-users-analytics');
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await stack?.dispose();
});

const newest = <T extends { timestamp: string }>(xs: T[]) =>
  [...xs].sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp));

describe('user, session, tracking and feedback tools end to end', () => {
  it('are listed over MCP, read-only, without project_id', async () => {
    const { tools } = await mcp.listTools();
    const mine = tools.filter((t) =>
      ['user.detail', 'session.detail', 'track.recent', 'track.stats', 'feedback.search'].includes(t.name),
    );
    expect(mine).toHaveLength(5);
    for (const t of mine) {
      expect(t.annotations?.readOnlyHint).toBe(true);
      expect(JSON.stringify(t.inputSchema)).not.toContain('project_id');
    }
  });

  it('user.detail: every channel newest first with totals', async () => {
    const body = await both('user.detail', { user_id: 'user_0', limit: 3 });
    const mine = <T extends { user_id?: string }>(xs: T[]) => xs.filter((x) => x.user_id === 'user_0');
    expect(body).toMatchObject({ user_id: 'user_0', found: true, limit: 3 });
    for (const [name, rows] of [
      ['logs', mine(logs)],
      ['events', mine(events)],
      ['feedback', mine(feedback)],
      ['crashes', mine(crashes)],
    ] as const) {
      const channel = body[name] as { total: number; items: { timestamp: string }[]; has_more: boolean };
      expect(channel.total).toBe(rows.length);
      expect(channel.items.map((i) => i.timestamp)).toEqual(
        newest(rows as { timestamp: string }[])
          .slice(0, 3)
          .map((r) => r.timestamp),
      );
      expect(channel.has_more).toBe(rows.length > 3);
    }
    expect(body.first_seen).toBe(sessions[0]!.started_at);
    expect(body.platforms).toEqual(
      [...new Set(mine([...events, ...logs, ...crashes, ...sessions]).map((x) => x.platform))].sort(),
    );
    expect((await both('user.detail', { user_id: 'nobody' })).found).toBe(false);
  });

  it('session.detail: the session record and its channels', async () => {
    const body = await both('session.detail', { session_id: 'sess_0' });
    expect(body.session).toEqual(sessions[0]);
    expect(body).toMatchObject({ found: true, user_ids: ['user_0'], limit: 50 });
    expect((body.events as { total: number }).total).toBe(
      events.filter((e) => e.session_id === 'sess_0').length,
    );
    expect((body.crashes as { items: { event_id: string }[] }).items.map((c) => c.event_id)).toEqual([
      'crash_1',
    ]);
  });

  it('track.recent: name, user and literal search, properties as objects', async () => {
    const body = await both('track.recent', { search: 'pro 50%', limit: 100 });
    const expected = newest(events.filter((e) => e.properties.plan === 'Pro 50%'));
    expect(body).toEqual({
      items: expected.map((e) => ({ ...e })),
      limit: 100,
      has_more: false,
    });
    const byName = await both('track.recent', { name: 'purchase', user_id: 'user_1', limit: 2 });
    const named = newest(events.filter((e) => e.event_name === 'purchase' && e.user_id === 'user_1'));
    expect(byName).toEqual({
      items: named.slice(0, 2),
      limit: 2,
      has_more: named.length > 2,
      ...(named.length > 2 ? { next_cursor: expect.any(String) } : {}),
    });
  });

  it('track.stats: totals, top events and a zero-filled daily trend', async () => {
    const body = await both('track.stats', { days: 7 });
    const window = body.window as { from: string; to: string };
    expect(Date.parse(window.to) - Date.parse(window.from)).toBe(7 * DAY);
    const inWindow = events.filter((e) => e.timestamp >= window.from && e.timestamp <= window.to);
    expect(body.total).toBe(inWindow.length);
    expect(body.unique_users).toBe(new Set(inWindow.map((e) => e.user_id)).size);
    const daily = body.daily as { date: string; count: number }[];
    expect(daily).toHaveLength(8);
    expect(daily.reduce((s, d) => s + d.count, 0)).toBe(inWindow.length);
    for (const d of daily)
      expect(d.count).toBe(inWindow.filter((e) => e.timestamp.slice(0, 10) === d.date).length);
  });

  it('feedback.search: a user history, a literal search, hostile text cleaned', async () => {
    const history = await both('feedback.search', { user_id: 'user_1' });
    const expected = newest(feedback.filter((f) => f.user_id === 'user_1'));
    expect(history.total).toBe(expected.length);
    expect((history.items as { feedback_id: string }[]).map((f) => f.feedback_id)).toEqual(
      expected.map((f) => f.feedback_id),
    );
    const sale = await both('feedback.search', { search: '50%' });
    expect(sale.total).toBe(feedback.filter((f) => f.message.includes('50%')).length);
    const evil = await both('feedback.search', { user_id: 'user_3' });
    expect((evil.items as { message: string }[])[0]!.message).toBe('hi evil there');
  });

  it('refuses out-of-range limits and days with 400 (REST) and isError (MCP)', async () => {
    for (const [tool, args] of [
      ['track.stats', { days: 0 }],
      ['track.stats', { days: 366 }],
      ['track.recent', { limit: 1001 }],
      ['feedback.search', { limit: 0 }],
      ['user.detail', { user_id: 'u', limit: 1001 }],
      ['session.detail', {}],
    ] as const) {
      const r = await rest(tool, args);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_input');
      const m = await mcp.callTool({ name: tool, arguments: args });
      expect(m.isError).toBe(true);
    }
  });
});

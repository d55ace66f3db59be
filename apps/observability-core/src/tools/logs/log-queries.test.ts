import { type DemoLog, generateDemoProject } from '@svc/demo-data';
import {
  type LogEntry,
  logAggregateOutput,
  logBySessionOutput,
  logByUserOutput,
  logRecentOutput,
  logSearchOutput,
} from '@svc/tools-logs';
import request from 'supertest';
import type { z } from 'zod';
import {
  type CoreHarness,
  createCoreHarness,
  INTERNAL_SECRET,
  type TestKey,
} from '../../testing/core-harness';
import { contains } from '../sql/text-match';

// Expected answers are computed here from the ingested records with plain JS, never by the code
// under test.

const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;
const HOUR = 3_600_000;
const keyA: TestKey = { keyId: 'key_a', projectId: 'proj_a', secret: 'secret-a-0123456789', active: true };
const keyB: TestKey = { keyId: 'key_b', projectId: 'proj_b', secret: 'secret-b-0123456789', active: true };

const at = (msAgo: number) => new Date(NOW - msAgo).toISOString();
const line = (msAgo: number, message: string, extra: Partial<DemoLog> = {}): DemoLog => ({
  timestamp: at(msAgo),
  level: 'INFO',
  message,
  source: 'backend',
  ...extra,
});

/** Pairs that tell a literal match from a LIKE / glob / regex one: only the first of each may match. */
const LITERAL_PAIRS: [needle: string, matches: string, mustNotMatch: string][] = [
  ['100%', 'literal: 100% sure', 'literal: 100 percent sure'],
  ['file_name', 'missing file_name field', 'missing fileXname field'],
  ['*.log', 'rotated *.log files', 'rotated a.log files'],
  ['.*', 'pattern .* configured', 'pattern abc configured'],
  ['a\\b', 'path a\\b found', 'path ab found'],
  ['[0-9]+', 'rule [0-9]+ applied', 'rule 42 applied'],
];

const crafted: DemoLog[] = [
  ...LITERAL_PAIRS.flatMap(([, yes, no], i) => [line(10_000 + i * 1000, yes), line(10_500 + i * 1000, no)]),
  line(30_000, 'MiXeD CaSe NeEdLe in here', { source: 'device', platform: 'ios', user_id: 'user_case' }),
];

// In a project of their own, so the other expectations can use records as they were sent.
const keyC: TestKey = { keyId: 'key_c', projectId: 'proj_c', secret: 'secret-c-0123456789', active: true };
const hostile: DemoLog[] = [
  line(31_000, `zero\u200Bwidth and bidi \u202Egnp.exe\u202C and bell \u0007 end`, {
    user_id: 'user_sanitize',
  }),
  line(32_000, `huge ${'y'.repeat(20_000)}`, { user_id: 'user_sanitize' }),
];
// The edges of log.aggregate's hours, also in project C: [from, from + 1h) is hour 0, `to` is in hour 23.
const hourEdges: DemoLog[] = [
  line(24 * HOUR + 1, 'just before the window', { user_id: 'user_hours' }),
  line(24 * HOUR, 'the window opens', { user_id: 'user_hours' }),
  line(23 * HOUR + 1, 'last ms of hour 0', { user_id: 'user_hours' }),
  line(23 * HOUR, 'first ms of hour 1', { user_id: 'user_hours' }),
  line(1, 'one ms before now', { user_id: 'user_hours' }),
  line(0, 'now', { user_id: 'user_hours' }),
  line(-1, 'one ms after now', { user_id: 'user_hours' }),
];

const demoA = generateDemoProject({ seed: 11, size: 0.5, now: NOW, days: 3 });
const logsA: DemoLog[] = [...demoA.logs, ...crafted];
// Project B repeats some of A's users, sessions, traces and messages, marked: none of it may
// ever show up in an answer about A.
const logsB: DemoLog[] = [
  ...generateDemoProject({ seed: 12, size: 0.2, now: NOW, days: 3 }).logs,
  ...demoA.logs.slice(0, 300).map((l) => ({ ...l, message: `B-ONLY ${l.message}` })),
  ...crafted.map((l) => ({ ...l, message: `B-ONLY ${l.message}` })),
];

const ms = (l: DemoLog) => Date.parse(l.timestamp);
const keyOf = (e: { timestamp: string; message: string }) =>
  `${new Date(e.timestamp).toISOString()}|${e.message}`;
const newestFirst = (a: DemoLog, b: DemoLog) =>
  ms(b) - ms(a) || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0);
const oldestFirst = (a: DemoLog, b: DemoLog) =>
  ms(a) - ms(b) || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0);

function asEntry(l: DemoLog): LogEntry {
  return {
    timestamp: new Date(l.timestamp).toISOString(),
    level: l.level,
    message: l.message,
    source: l.source,
    platform: l.platform ?? null,
    app_version: l.app_version ?? null,
    user_id: l.user_id ?? null,
    session_id: l.session_id ?? null,
    device_id: l.device_id ?? null,
    trace_id: l.trace_id ?? null,
    span_id: l.span_id ?? null,
    event_id: l.event_id ?? null,
    attributes: l.attributes ?? {},
  };
}

function expectPage(
  body: { items: LogEntry[]; limit: number; has_more: boolean },
  matching: DemoLog[],
  order: (a: DemoLog, b: DemoLog) => number,
  limit: number,
) {
  const sorted = [...matching].sort(order);
  expect(body.items.map(keyOf)).toEqual(sorted.slice(0, limit).map(keyOf));
  expect(body.has_more).toBe(sorted.length > limit);
  expect(body.limit).toBe(limit);
  const byKey = new Map(sorted.map((l) => [keyOf(l), asEntry(l)]));
  for (const item of body.items) expect(item).toEqual(byKey.get(keyOf(item)));
}

const includesCI = (message: string, needle: string) => message.toLowerCase().includes(needle.toLowerCase());

describe('log tools over POST /internal/v1/projects/:project_id/tools/:tool', () => {
  let h: CoreHarness;

  async function call<S extends z.ZodType>(schema: S, tool: string, input: unknown, project = 'proj_a') {
    const res = await h.callTool(project, tool, input);
    expect(res.status).toBe(200);
    const body = schema.parse(res.body) as z.output<S>;
    expect(JSON.stringify(res.body)).not.toContain('B-ONLY');
    return body;
  }

  beforeAll(async () => {
    h = await createCoreHarness('core_log_tools', NOW, [keyA, keyB, keyC]);
    await h.ingest(keyC, { logs: [...hostile, ...hourEdges] }).expect(200);
    for (let i = 0; i < logsA.length; i += 1000) {
      await h.ingest(keyA, { logs: logsA.slice(i, i + 1000) }).expect(200);
    }
    await h.ingest(keyB, { logs: logsB }).expect(200);
  });
  afterAll(async () => {
    await h.close();
  });

  describe('log.search', () => {
    it.each(LITERAL_PAIRS)('matches %p literally', async (needle, yes, no) => {
      const body = await call(logSearchOutput, 'log.search', { search: needle, limit: 100 });
      const messages = body.items.map((i) => i.message);
      expect(messages).toContain(yes);
      expect(messages).not.toContain(no);
      expectPage(
        body,
        logsA.filter((l) => includesCI(l.message, needle)),
        newestFirst,
        100,
      );
    });

    it('is case-insensitive', async () => {
      const body = await call(logSearchOutput, 'log.search', { search: 'mixed case NEEDLE' });
      expect(body.items.map((i) => i.message)).toEqual(['MiXeD CaSe NeEdLe in here']);
    });

    it.each(['50%', 'SAVE_50', '^user_[0-9]+$', '(USD) = $19.99', '"shoe*"', 'C:\\logs\\*.log'])(
      'finds the generated tricky message %p',
      async (needle) => {
        const body = await call(logSearchOutput, 'log.search', { search: needle, limit: 1000 });
        const expected = logsA.filter((l) => includesCI(l.message, needle));
        expect(expected.length).toBeGreaterThan(0);
        expectPage(body, expected, newestFirst, 1000);
      },
    );

    it('pages with limit and has_more, default limit 20', async () => {
      const expected = logsA.filter((l) => includesCI(l.message, 'screen view'));
      expect(expected.length).toBeGreaterThan(25);
      expectPage(
        await call(logSearchOutput, 'log.search', { search: 'Screen View' }),
        expected,
        newestFirst,
        20,
      );
      expectPage(
        await call(logSearchOutput, 'log.search', { search: 'screen view', limit: 3 }),
        expected,
        newestFirst,
        3,
      );
      expectPage(
        await call(logSearchOutput, 'log.search', { search: 'screen view', limit: expected.length }),
        expected,
        newestFirst,
        expected.length,
      );
    });

    it('narrows by source, trace_id and event_id', async () => {
      const handled = logsA.filter((l) => includesCI(l.message, 'GET') && l.source === 'backend');
      expectPage(
        await call(logSearchOutput, 'log.search', { search: 'get', source: 'backend', limit: 500 }),
        handled,
        newestFirst,
        500,
      );
      const traced = logsA.find((l) => l.trace_id && l.source === 'backend')!;
      expectPage(
        await call(logSearchOutput, 'log.search', {
          search: 'handled',
          trace_id: traced.trace_id!.toUpperCase(),
        }),
        logsA.filter((l) => l.trace_id === traced.trace_id && includesCI(l.message, 'handled')),
        newestFirst,
        20,
      );
      const crash = demoA.crashes[0]!;
      expectPage(
        await call(logSearchOutput, 'log.search', { search: crash.error_type, event_id: crash.event_id }),
        logsA.filter((l) => l.event_id === crash.event_id && includesCI(l.message, crash.error_type)),
        newestFirst,
        20,
      );
    });

    it('uses the ngram index of lower(message) for ASCII needles', async () => {
      const filter = contains('message', 'Discount 50%');
      const plan = await h.ch.query<{ explain: string }>(
        `EXPLAIN indexes = 1 SELECT count() FROM logs WHERE project_id = {project_id:String} AND ${filter.where[0]}`,
        { project_id: 'proj_a', ...filter.params },
      );
      expect(plan.map((r) => r.explain).join('\n')).toContain('idx_message_ngram');
    });
  });

  describe('log.recent', () => {
    it('returns the newest lines, optionally of one exact level, source or trace', async () => {
      expectPage(await call(logRecentOutput, 'log.recent', {}), logsA, newestFirst, 20);
      expectPage(
        await call(logRecentOutput, 'log.recent', { level: 'ERROR', limit: 7 }),
        logsA.filter((l) => l.level === 'ERROR'),
        newestFirst,
        7,
      );
      expectPage(
        await call(logRecentOutput, 'log.recent', { level: 'WARN', source: 'backend', limit: 1000 }),
        logsA.filter((l) => l.level === 'WARN' && l.source === 'backend'),
        newestFirst,
        1000,
      );
      const traceId = logsA.find((l) => l.trace_id)!.trace_id!;
      expectPage(
        await call(logRecentOutput, 'log.recent', { trace_id: traceId }),
        logsA.filter((l) => l.trace_id === traceId),
        newestFirst,
        20,
      );
    });

    it.each(['error', 'Warn', ' fatal '])(
      'takes level %j in any case and answers in the canonical one',
      async (level) => {
        const canonical = level.trim().toUpperCase();
        const page = await call(logRecentOutput, 'log.recent', { level, limit: 1000 });
        expectPage(
          page,
          logsA.filter((l) => l.level === canonical),
          newestFirst,
          1000,
        );
        expect(page.items.length).toBeGreaterThan(0);
        expect(new Set(page.items.map((l) => l.level))).toEqual(new Set([canonical]));
      },
    );
  });

  describe('log.by_user and log.by_session', () => {
    it('returns one user’s lines newest first, default limit 50', async () => {
      const counts = new Map<string, number>();
      for (const l of logsA) if (l.user_id) counts.set(l.user_id, (counts.get(l.user_id) ?? 0) + 1);
      const [busiest] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
      const expected = logsA.filter((l) => l.user_id === busiest);
      expect(expected.length).toBeGreaterThan(50);
      expectPage(await call(logByUserOutput, 'log.by_user', { user_id: busiest }), expected, newestFirst, 50);
      expectPage(
        await call(logByUserOutput, 'log.by_user', { user_id: busiest, limit: 2 }),
        expected,
        newestFirst,
        2,
      );
      const none = await call(logByUserOutput, 'log.by_user', { user_id: 'nobody' });
      expect(none).toEqual({ items: [], limit: 50, has_more: false });
    });

    it('returns a session oldest first, as a story', async () => {
      const session = demoA.sessions.find((s) => s.status === 'crashed') ?? demoA.sessions[0]!;
      const expected = logsA.filter((l) => l.session_id === session.session_id);
      const whole = await call(logBySessionOutput, 'log.by_session', { session_id: session.session_id });
      expectPage(whole, expected, oldestFirst, 100);
      expect(whole.items[0]?.message).toMatch(/^App launched/);
      expectPage(
        await call(logBySessionOutput, 'log.by_session', { session_id: session.session_id, limit: 4 }),
        expected,
        oldestFirst,
        4,
      );
    });
  });

  describe('cursors', () => {
    it('log.by_user pages by next_cursor: every line once, in order, none after the last page', async () => {
      const user = logsA.find((l) => l.user_id)!.user_id;
      const expected = logsA.filter((l) => l.user_id === user).sort(newestFirst);
      expect(expected.length).toBeGreaterThan(14);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page === 0 || cursor; page += 1) {
        const body = await call(logByUserOutput, 'log.by_user', {
          user_id: user,
          limit: 7,
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...body.items.map(keyOf));
        expect(body.next_cursor === undefined).toBe(!body.has_more);
        cursor = body.next_cursor;
      }
      expect(seen).toEqual(expected.map(keyOf));
    });

    it('refuses a cursor given with other arguments or to another project: a 400 naming cursor', async () => {
      const user = logsA.find((l) => l.user_id)!.user_id;
      const { next_cursor } = await call(logByUserOutput, 'log.by_user', { user_id: user, limit: 1 });
      const other = await h.callTool('proj_a', 'log.by_user', {
        user_id: 'someone_else',
        cursor: next_cursor,
      });
      expect(other.status).toBe(400);
      expect(other.body.message).toMatch(/cursor belongs to another call/);
      const project = await h.callTool('proj_b', 'log.by_user', {
        user_id: user,
        limit: 1,
        cursor: next_cursor,
      });
      expect(project.status).toBe(400);
      expect(project.body.details).toEqual([expect.objectContaining({ path: 'cursor' })]);
    });
  });

  describe('log.aggregate', () => {
    const inWindow = logsA.filter((l) => ms(l) >= NOW - 24 * HOUR && ms(l) <= NOW);

    function expectedGroups(key: (l: DemoLog) => string | undefined, lines = inWindow) {
      const counts = new Map<string | null, number[]>();
      for (const l of lines) {
        const k = key(l) ?? null;
        const hourly = counts.get(k) ?? new Array<number>(24).fill(0);
        hourly[Math.min(23, Math.floor((ms(l) - (NOW - 24 * HOUR)) / HOUR))]! += 1;
        counts.set(k, hourly);
      }
      return [...counts.entries()]
        .map(([k, hourly]) => ({ key: k, count: hourly.reduce((a, b) => a + b, 0), hourly }))
        .sort((a, b) => {
          if (b.count !== a.count) return b.count - a.count;
          if (a.key === null) return 1;
          if (b.key === null) return -1;
          return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
        });
    }

    it('counts the last 24 hours only, by level, platform and user', async () => {
      expect(inWindow.length).toBeLessThan(logsA.length);
      for (const [groupBy, key] of [
        ['level', (l: DemoLog) => l.level],
        ['platform', (l: DemoLog) => l.platform],
        ['user_id', (l: DemoLog) => l.user_id],
      ] as const) {
        const body = await call(logAggregateOutput, 'log.aggregate', { group_by: groupBy });
        const groups = expectedGroups(key);
        expect(body).toEqual({
          window: { from: new Date(NOW - 24 * HOUR).toISOString(), to: new Date(NOW).toISOString() },
          group_by: groupBy,
          total: inWindow.length,
          groups: groups.slice(0, 500),
          limit: 500,
          has_more: groups.length > 500,
        });
      }
    });

    it('gives each group its 24 hourly counts: [from, from + 1h) is hour 0, `to` belongs to hour 23', async () => {
      const body = await call(logAggregateOutput, 'log.aggregate', { group_by: 'user_id' }, 'proj_c');
      const group = body.groups.find((g) => g.key === 'user_hours')!;
      const hourly = new Array<number>(24).fill(0);
      hourly[0] = 2;
      hourly[1] = 1;
      hourly[23] = 2;
      expect(group).toEqual({ key: 'user_hours', count: 5, hourly });
      const linesC = [...hostile, ...hourEdges].filter((l) => ms(l) >= NOW - 24 * HOUR && ms(l) <= NOW);
      expect(body.groups).toEqual(expectedGroups((l) => l.user_id, linesC));
    });

    it('limits groups and reports has_more', async () => {
      const body = await call(logAggregateOutput, 'log.aggregate', { group_by: 'user_id', limit: 2 });
      const groups = expectedGroups((l) => l.user_id);
      expect(body.groups).toEqual(groups.slice(0, 2));
      expect(body.has_more).toBe(true);
      expect(body.total).toBe(inWindow.length);
    });
  });

  describe('isolation, sanitizing and errors', () => {
    it('answers about project B from B’s rows only', async () => {
      const res = await h.callTool('proj_b', 'log.search', { search: 'B-ONLY', limit: 1000 });
      expect(res.status).toBe(200);
      const expected = logsB.filter((l) => l.message.startsWith('B-ONLY'));
      expectPage(logSearchOutput.parse(res.body), expected, newestFirst, 1000);
      const agg = await h.callTool('proj_b', 'log.aggregate', { group_by: 'level' });
      expect(agg.body.total).toBe(logsB.filter((l) => ms(l) >= NOW - 24 * HOUR && ms(l) <= NOW).length);
      const none = await call(logSearchOutput, 'log.search', { search: 'B-ONLY' });
      expect(none.items).toEqual([]);
    });

    it('strips invisible characters and caps long messages', async () => {
      const body = await call(logByUserOutput, 'log.by_user', { user_id: 'user_sanitize' }, 'proj_c');
      const messages = body.items.map((i) => i.message);
      expect(messages).toContain('zerowidth and bidi gnp.exe and bell  end');
      const huge = messages.find((m) => m.startsWith('huge'))!;
      expect(huge.length).toBe(8192);
      expect(huge.endsWith('…[truncated]')).toBe(true);
    });

    it('validates input with the tool schema', async () => {
      for (const input of [
        {},
        { search: '' },
        { search: 'x', limit: 0 },
        { search: 'x', project_id: 'proj_b' },
      ]) {
        const res = await h.callTool('proj_a', 'log.search', input);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('invalid_input');
      }
      const bad = await h.callTool('proj_a', 'log.aggregate', { group_by: 'message' });
      expect(bad.status).toBe(400);
    });

    it('answers 404 for a tool the core does not serve and 401 without the internal secret', async () => {
      expect((await h.callTool('proj_a', 'log.recall_trigger', {})).status).toBe(404);
      const path = '/internal/v1/projects/proj_a/tools/log.recent';
      const missing = await request(h.app).post(path).send({});
      expect(missing.status).toBe(401);
      expect(missing.body.error).toBe('unauthorized');
      const wrong = await request(h.app).post(path).set('X-Internal-Secret', `${INTERNAL_SECRET}x`).send({});
      expect(wrong.status).toBe(401);
    });

    it('reports health', async () => {
      const res = await request(h.app).get('/healthz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    });
  });
});

import { sessionDetailOutput, userDetailOutput } from '@svc/tools-users';
import type { z } from 'zod';
import {
  buildRecords,
  type CrashIn,
  type EventIn,
  type FeedbackIn,
  type LogIn,
  type Records,
  type SessionIn,
} from '../../testing/analytics-records';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';

// Expected views are computed here, in plain JS, from the records that were ingested.

const HOUR = 3_600_000;
const NOW = Math.floor(Date.now() / HOUR) * HOUR + 23 * 60_000;
const keyA: TestKey = { keyId: 'us_key_a', projectId: 'us_a', secret: 'secret-a-0123456789', active: true };
const keyB: TestKey = { keyId: 'us_key_b', projectId: 'us_b', secret: 'secret-b-0123456789', active: true };

const A = buildRecords({ seed: 3, now: NOW, users: 9, days: 20 });
const B = buildRecords({ seed: 3, now: NOW, users: 9, days: 20, marker: 'B-ONLY' });
// A session of its own: only a session record and one log line, for the "only parts exist" case.
A.sessions.push({
  session_id: 'sess_lonely',
  user_id: 'user_lonely',
  started_at: new Date(NOW - 5 * HOUR).toISOString(),
  status: 'abnormal',
  platform: 'web',
  app_version: '0.9.0',
});

// Lines sharing one timestamp: the order among them (message) must hold across the limit.
for (const m of ['delta', 'alpha', 'charlie', 'bravo'])
  A.logs.push({
    timestamp: new Date(NOW - 7 * HOUR).toISOString(),
    level: 'INFO',
    message: m,
    source: 'backend',
    user_id: 'user_ties',
    session_id: 'sess_ties',
  });

const ms = (iso: string) => Date.parse(iso);
const isoOf = (t: string) => new Date(t).toISOString();
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const asLog = (l: LogIn) => ({
  timestamp: isoOf(l.timestamp),
  level: l.level,
  message: l.message,
  source: l.source,
  platform: l.platform ?? null,
  app_version: l.app_version ?? null,
  user_id: l.user_id ?? null,
  session_id: l.session_id ?? null,
  device_id: null,
  trace_id: null,
  span_id: null,
  event_id: null,
  attributes: {},
});
const asCrash = (c: CrashIn) => ({
  event_id: c.event_id,
  timestamp: isoOf(c.timestamp),
  signature: c.signature,
  error_type: c.error_type,
  message: c.message,
  platform: c.platform,
  app_version: c.app_version,
  device_os: c.device_os,
  user_id: c.user_id ?? null,
  session_id: c.session_id ?? null,
  // No symbol file is uploaded in this test, so no crash is ever symbolicated.
  symbolicated: false,
});
const asEvent = (e: EventIn) => ({
  timestamp: isoOf(e.timestamp),
  event_name: e.event_name,
  properties: e.properties ?? {},
  platform: e.platform ?? null,
  app_version: e.app_version ?? null,
  user_id: e.user_id,
  session_id: e.session_id ?? null,
});
const asFeedback = (f: FeedbackIn) => ({
  feedback_id: f.feedback_id,
  timestamp: isoOf(f.timestamp),
  user_id: f.user_id,
  session_id: f.session_id ?? null,
  message: f.message,
  rating: f.rating ?? null,
  platform: f.platform ?? null,
  app_version: f.app_version ?? null,
});
const asSession = (s: SessionIn) => ({
  session_id: s.session_id,
  user_id: s.user_id,
  status: s.status,
  started_at: isoOf(s.started_at),
  ended_at: s.ended_at ? isoOf(s.ended_at) : null,
  platform: s.platform,
  app_version: s.app_version,
});

function channel<T, O>(
  rows: T[],
  time: (x: T) => string,
  tie: (x: T) => string,
  map: (x: T) => O,
  limit: number,
) {
  const sorted = [...rows].sort((a, b) => ms(time(b)) - ms(time(a)) || cmp(tie(a), tie(b)));
  return { total: rows.length, items: sorted.slice(0, limit).map(map), has_more: rows.length > limit };
}

/** The whole expected view of every record whose `key` is `id`. */
function expectedView(r: Records, key: 'user_id' | 'session_id', id: string, limit: number) {
  const mine = <T extends { user_id?: string; session_id?: string }>(xs: T[]) =>
    xs.filter((x) => x[key] === id);
  const logs = mine(r.logs);
  const crashes = mine(r.crashes);
  const events = mine(r.events);
  const feedback = mine(r.feedback);
  const sessions = mine(r.sessions);
  const times = [
    ...logs.map((x) => x.timestamp),
    ...crashes.map((x) => x.timestamp),
    ...events.map((x) => x.timestamp),
    ...feedback.map((x) => x.timestamp),
    ...sessions.flatMap((s) => [s.started_at, s.ended_at ?? s.started_at]),
  ].map(ms);
  const all = [...logs, ...crashes, ...events, ...feedback, ...sessions];
  const distinct = (f: (x: (typeof all)[number]) => string | undefined) =>
    [...new Set(all.map(f).filter((v): v is string => Boolean(v)))].sort();
  return {
    found: all.length > 0,
    first_seen: times.length ? new Date(Math.min(...times)).toISOString() : null,
    last_seen: times.length ? new Date(Math.max(...times)).toISOString() : null,
    platforms: distinct((x) => x.platform),
    app_versions: distinct((x) => x.app_version),
    user_ids: distinct((x) => x.user_id),
    limit,
    logs: channel(
      logs,
      (x) => x.timestamp,
      (x) => x.message,
      asLog,
      limit,
    ),
    crashes: channel(
      crashes,
      (x) => x.timestamp,
      (x) => x.event_id,
      asCrash,
      limit,
    ),
    events: channel(
      events,
      (x) => x.timestamp,
      (x) => x.event_name,
      asEvent,
      limit,
    ),
    feedback: channel(
      feedback,
      (x) => x.timestamp,
      (x) => x.feedback_id,
      asFeedback,
      limit,
    ),
    sessions: channel(
      sessions,
      (x) => x.started_at,
      (x) => x.session_id,
      asSession,
      limit,
    ),
  };
}

describe('user.detail and session.detail on chDB', () => {
  let h: CoreHarness;

  async function call<S extends z.ZodType>(schema: S, tool: string, input: unknown, project = 'us_a') {
    const res = await h.callTool(project, tool, input);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('B-ONLY');
    return schema.parse(res.body) as z.output<S>;
  }

  beforeAll(async () => {
    h = await createCoreHarness('core_user_tools', NOW, [keyA, keyB]);
    const { logs, crashes, events, feedback, sessions } = A;
    await h.ingest(keyA, { logs, crashes, events, feedback, sessions }).expect(200);
    await h.ingest(keyB, { ...B }).expect(200);
    // Re-sent crashes and feedback (same id and time) stay one each.
    await h.ingest(keyA, { crashes: A.crashes.slice(0, 3), feedback: A.feedback.slice(0, 3) }).expect(200);
    // A session reported again when it ends: the latest report wins.
    const first = A.sessions[0]!;
    const ended = {
      ...first,
      ended_at: new Date(ms(first.started_at) + 2 * HOUR).toISOString(),
      status: 'crashed' as const,
    };
    await h.ingest(keyA, { sessions: [ended] }, Math.floor(NOW / 1000)).expect(200);
    A.sessions[0] = ended;
  });
  afterAll(async () => {
    await h.close();
  });

  describe('user.detail', () => {
    it.each(['user_0', 'user_1', 'user_2', 'user_5', 'user_8'])(
      '%s: every channel newest first up to 10, with totals and where/when seen',
      async (user) => {
        const body = await call(userDetailOutput, 'user.detail', { user_id: user });
        const { user_ids: _, ...expected } = expectedView(A, 'user_id', user, 10);
        expect(body).toEqual({ user_id: user, ...expected });
        expect(body.found).toBe(true);
      },
    );

    it.each([1, 3, 1000])('limit %i applies per channel', async (limit) => {
      const body = await call(userDetailOutput, 'user.detail', { user_id: 'user_4', limit });
      const { user_ids: _, ...expected } = expectedView(A, 'user_id', 'user_4', limit);
      expect(body).toEqual({ user_id: 'user_4', ...expected });
      expect(body.logs.has_more).toBe(limit < 1000);
    });

    it.each([1, 2, 3, 4, 5])('lines with the same timestamp keep their order at limit %i', async (limit) => {
      const user = await call(userDetailOutput, 'user.detail', { user_id: 'user_ties', limit });
      expect(user.logs.items.map((l) => l.message)).toEqual(
        ['alpha', 'bravo', 'charlie', 'delta'].slice(0, limit),
      );
      const session = await call(sessionDetailOutput, 'session.detail', { session_id: 'sess_ties', limit });
      expect(session.logs).toEqual(expectedView(A, 'session_id', 'sess_ties', limit).logs);
    });

    it('an unknown user is found: false with empty channels', async () => {
      const body = await call(userDetailOutput, 'user.detail', { user_id: 'nobody' });
      const empty = { total: 0, items: [], has_more: false };
      expect(body).toEqual({
        user_id: 'nobody',
        found: false,
        first_seen: null,
        last_seen: null,
        platforms: [],
        app_versions: [],
        limit: 10,
        logs: empty,
        crashes: empty,
        events: empty,
        feedback: empty,
        sessions: empty,
      });
    });

    it('a user with only a session record is found, seen from its start', async () => {
      const body = await call(userDetailOutput, 'user.detail', { user_id: 'user_lonely' });
      const { user_ids: _, ...expected } = expectedView(A, 'user_id', 'user_lonely', 10);
      expect(body).toEqual({ user_id: 'user_lonely', ...expected });
      expect(body).toMatchObject({ found: true, platforms: ['web'], app_versions: ['0.9.0'] });
    });

    it('rejects bad input with 400', async () => {
      for (const input of [
        {},
        { user_id: '' },
        { user_id: 'u', limit: 0 },
        { user_id: 'u', limit: 1001 },
        { user_id: 'u', x: 1 },
      ])
        expect((await h.callTool('us_a', 'user.detail', input)).status).toBe(400);
    });
  });

  describe('session.detail', () => {
    const view = (id: string, limit: number) => {
      const { sessions, ...rest } = expectedView(A, 'session_id', id, limit);
      return { session_id: id, session: sessions.items[0] ?? null, ...rest };
    };

    it.each(['sess_0_0', 'sess_2_1', 'sess_5_2', 'sess_7_0'])(
      '%s: the session record and every channel newest first, default limit 50',
      async (session) => {
        const body = await call(sessionDetailOutput, 'session.detail', { session_id: session });
        expect(body).toEqual(view(session, 50));
        expect(body.session).not.toBeNull();
      },
    );

    it('shows the latest report of a session (ended later, crashed)', async () => {
      const body = await call(sessionDetailOutput, 'session.detail', { session_id: 'sess_0_0' });
      expect(body.session).toEqual(asSession(A.sessions[0]!));
      expect(body.session?.status).toBe('crashed');
    });

    it('limit applies per channel, with totals beyond it', async () => {
      const body = await call(sessionDetailOutput, 'session.detail', { session_id: 'sess_2_1', limit: 2 });
      expect(body).toEqual(view('sess_2_1', 2));
      expect(body.logs.has_more).toBe(true);
    });

    it('a session with only its record', async () => {
      const body = await call(sessionDetailOutput, 'session.detail', { session_id: 'sess_lonely' });
      expect(body).toEqual(view('sess_lonely', 50));
      expect(body).toMatchObject({ found: true, user_ids: ['user_lonely'], logs: { total: 0 } });
    });

    it('an unknown session is found: false', async () => {
      const body = await call(sessionDetailOutput, 'session.detail', { session_id: 'nope' });
      expect(body).toMatchObject({
        found: false,
        session: null,
        user_ids: [],
        first_seen: null,
        last_seen: null,
      });
      expect(body.logs).toEqual({ total: 0, items: [], has_more: false });
    });

    it('rejects bad input with 400', async () => {
      for (const input of [{}, { session_id: '  ' }, { session_id: 's', limit: 1001 }, { user_id: 'u' }])
        expect((await h.callTool('us_a', 'session.detail', input)).status).toBe(400);
    });
  });
});

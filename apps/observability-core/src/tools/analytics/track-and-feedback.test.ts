import { feedbackSearchOutput, trackRecentOutput, trackStatsOutput } from '@svc/tools-analytics';
import type { z } from 'zod';
import { buildRecords, type EventIn, type FeedbackIn } from '../../testing/analytics-records';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';

// Expected answers are computed here, in plain JS, from the records that were ingested.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Math.floor(Date.now() / HOUR) * HOUR + 17 * 60_000;
const keyA: TestKey = { keyId: 'an_key_a', projectId: 'an_a', secret: 'secret-a-0123456789', active: true };
const keyB: TestKey = { keyId: 'an_key_b', projectId: 'an_b', secret: 'secret-b-0123456789', active: true };

const A = buildRecords({ seed: 7, now: NOW, users: 12, days: 30 });
// Project B: the same ids and names, marked. None of it may show up in an answer about A.
const B = buildRecords({ seed: 7, now: NOW, users: 12, days: 30, marker: 'B-ONLY' });

const ms = (iso: string) => Date.parse(iso);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const eventOrder = (a: EventIn, b: EventIn) =>
  ms(b.timestamp) - ms(a.timestamp) ||
  cmp(a.event_name, b.event_name) ||
  cmp(a.user_id, b.user_id) ||
  cmp(a.session_id ?? '', b.session_id ?? '');
const feedbackOrder = (a: FeedbackIn, b: FeedbackIn) =>
  ms(b.timestamp) - ms(a.timestamp) || cmp(a.feedback_id, b.feedback_id);

function asEvent(e: EventIn) {
  return {
    timestamp: new Date(e.timestamp).toISOString(),
    event_name: e.event_name,
    properties: e.properties ?? {},
    platform: e.platform ?? null,
    app_version: e.app_version ?? null,
    user_id: e.user_id,
    session_id: e.session_id ?? null,
  };
}
function asFeedback(f: FeedbackIn) {
  return {
    feedback_id: f.feedback_id,
    timestamp: new Date(f.timestamp).toISOString(),
    user_id: f.user_id,
    session_id: f.session_id ?? null,
    message: f.message,
    rating: f.rating ?? null,
    platform: f.platform ?? null,
    app_version: f.app_version ?? null,
  };
}
function expectedPage<T, O>(
  all: T[],
  keep: (x: T) => boolean,
  order: (a: T, b: T) => number,
  map: (x: T) => O,
  limit: number,
) {
  const matching = all.filter(keep).sort(order);
  return { items: matching.slice(0, limit).map(map), limit, has_more: matching.length > limit };
}

/** A list tool's page (track.recent): with a cursor while more follow. */
function expectedListPage<T, O>(...args: Parameters<typeof expectedPage<T, O>>) {
  const page = expectedPage(...args);
  return page.has_more ? { ...page, next_cursor: expect.any(String) } : page;
}

/** The documented semantics of `search`: name or properties JSON text, also JSON-escaped. */
function eventMatches(e: EventIn, needle: string): boolean {
  const n = needle.toLowerCase();
  const text = JSON.stringify(e.properties ?? {}).toLowerCase();
  const escaped = JSON.stringify(needle).slice(1, -1).toLowerCase();
  return e.event_name.toLowerCase().includes(n) || text.includes(n) || text.includes(escaped);
}

describe('tracking and feedback tools on chDB', () => {
  let h: CoreHarness;

  async function call<S extends z.ZodType>(schema: S, tool: string, input: unknown, project = 'an_a') {
    const res = await h.callTool(project, tool, input);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('B-ONLY');
    return schema.parse(res.body) as z.output<S>;
  }

  beforeAll(async () => {
    h = await createCoreHarness('core_analytics_tools', NOW, [keyA, keyB]);
    await h.ingest(keyA, { events: A.events, feedback: A.feedback }).expect(200);
    await h.ingest(keyB, { events: B.events, feedback: B.feedback }).expect(200);
    // A re-sent feedback (same id and time) is still one feedback.
    await h.ingest(keyA, { feedback: A.feedback.slice(0, 5) }).expect(200);
  });
  afterAll(async () => {
    await h.close();
  });

  describe('track.recent', () => {
    it('lists the newest events with parsed properties, default limit 20', async () => {
      const body = await call(trackRecentOutput, 'track.recent', {});
      expect(body).toEqual(expectedListPage(A.events, () => true, eventOrder, asEvent, 20));
      expect(body.has_more).toBe(true);
    });

    it('filters by exact event name and by user, with limit and has_more', async () => {
      const cases: [{ name?: string; user_id?: string; limit?: number }, (e: EventIn) => boolean][] = [
        [{ name: 'checkout', limit: 5 }, (e: EventIn) => e.event_name === 'checkout'],
        [{ name: 'CHECKOUT' }, () => false],
        [{ user_id: 'user_3', limit: 1000 }, (e: EventIn) => e.user_id === 'user_3'],
        [
          { name: 'view_item', user_id: 'user_2' },
          (e: EventIn) => e.event_name === 'view_item' && e.user_id === 'user_2',
        ],
        [{ user_id: 'nobody' }, () => false],
      ];
      for (const [input, keep] of cases) {
        const body = await call(trackRecentOutput, 'track.recent', input);
        expect(body).toEqual(expectedListPage(A.events, keep, eventOrder, asEvent, input.limit ?? 20));
      }
    });

    it.each(['CHECK', '50%', 'a_b', 'say "hi"', 'C:\\temp', '"plan":"pro"', '%', '_', '.*', 'no-such-text'])(
      'search %p matches the event name or the properties text, literally and case-insensitively',
      async (needle) => {
        const body = await call(trackRecentOutput, 'track.recent', { search: needle, limit: 1000 });
        expect(body).toEqual(
          expectedListPage(A.events, (e) => eventMatches(e, needle), eventOrder, asEvent, 1000),
        );
      },
    );

    it('finds a property value only when it is really there', async () => {
      const withQuotes = await call(trackRecentOutput, 'track.recent', { search: 'SAY "HI"', limit: 1000 });
      expect(withQuotes.items.length).toBeGreaterThan(0);
      for (const e of withQuotes.items) expect(e.properties.plan).toBe('say "hi"');
      const wildcard = await call(trackRecentOutput, 'track.recent', { search: 'a_b', limit: 1000 });
      for (const e of wildcard.items) expect(JSON.stringify(e).toLowerCase()).toContain('a_b');
    });

    it('rejects bad input with 400', async () => {
      for (const input of [
        { limit: 0 },
        { limit: 1001 },
        { name: '' },
        { search: '  ' },
        { nope: 1 },
        { project_id: 'an_b' },
      ]) {
        const res = await h.callTool('an_a', 'track.recent', input);
        expect(res.status).toBe(400);
      }
    });
  });

  describe('track.stats', () => {
    it.each([14, 1, 7, 45])('counts the last %i days with a zero-filled UTC daily trend', async (days) => {
      const body = await call(trackStatsOutput, 'track.stats', { days });
      const from = NOW - days * DAY;
      expect(body.window).toEqual({ from: new Date(from).toISOString(), to: new Date(NOW).toISOString() });
      const inWindow = A.events.filter((e) => ms(e.timestamp) >= from && ms(e.timestamp) <= NOW);
      expect(body.total).toBe(inWindow.length);
      expect(body.unique_users).toBe(new Set(inWindow.map((e) => e.user_id)).size);

      const byName = new Map<string, { count: number; users: Set<string> }>();
      for (const e of inWindow) {
        const g = byName.get(e.event_name) ?? { count: 0, users: new Set() };
        g.count++;
        g.users.add(e.user_id);
        byName.set(e.event_name, g);
      }
      const top = [...byName.entries()]
        .map(([event_name, g]) => ({ event_name, count: g.count, users: g.users.size }))
        .sort((a, b) => b.count - a.count || cmp(a.event_name, b.event_name));
      expect(body.top_events).toEqual(top);
      expect(body.top_events.reduce((s, t) => s + t.count, 0)).toBe(body.total);

      const daily: { date: string; count: number }[] = [];
      const firstDay = Date.UTC(
        new Date(from).getUTCFullYear(),
        new Date(from).getUTCMonth(),
        new Date(from).getUTCDate(),
      );
      for (let d = firstDay; d <= NOW; d += DAY) {
        const date = new Date(d).toISOString().slice(0, 10);
        daily.push({ date, count: inWindow.filter((e) => e.timestamp.slice(0, 10) === date).length });
      }
      expect(body.daily).toEqual(daily);
      expect(body.daily).toHaveLength(days + 1); // NOW is not at midnight: the first day is partial
      // The records span 30 days: a longer window has days without events, which must be 0.
      if (days === 45) expect(body.daily.filter((d) => d.count === 0).length).toBeGreaterThan(10);
    });

    it('defaults to 14 days and refuses days out of 1..365', async () => {
      const body = await call(trackStatsOutput, 'track.stats', {});
      expect(Date.parse(body.window.to) - Date.parse(body.window.from)).toBe(14 * DAY);
      for (const days of [0, 366, 1.5])
        expect((await h.callTool('an_a', 'track.stats', { days })).status).toBe(400);
    });

    it('is zero-filled for a project without events', async () => {
      const body = await call(trackStatsOutput, 'track.stats', { days: 3 }, 'an_empty');
      expect(body).toMatchObject({ total: 0, unique_users: 0, top_events: [] });
      expect(body.daily.map((d) => d.count)).toEqual([0, 0, 0, 0]);
    });
  });

  describe('feedback.search', () => {
    const all = () => A.feedback; // the re-sent copies collapse: each feedback once

    it('without filters: the newest feedback, total and has_more', async () => {
      const body = await call(feedbackSearchOutput, 'feedback.search', {});
      expect(body).toEqual({
        ...expectedPage(all(), () => true, feedbackOrder, asFeedback, 20),
        total: all().length,
      });
    });

    it("with only user_id: that user's whole history, paged by limit, total counting all of it", async () => {
      const perUser = new Map<string, number>();
      for (const f of all()) perUser.set(f.user_id, (perUser.get(f.user_id) ?? 0) + 1);
      const [user, n] = [...perUser.entries()].sort((a, b) => b[1] - a[1])[0]!;
      expect(n).toBeGreaterThan(2);
      const mine = (f: FeedbackIn) => f.user_id === user;
      const whole = await call(feedbackSearchOutput, 'feedback.search', { user_id: user, limit: 1000 });
      expect(whole).toEqual({ ...expectedPage(all(), mine, feedbackOrder, asFeedback, 1000), total: n });
      const first = await call(feedbackSearchOutput, 'feedback.search', { user_id: user, limit: 2 });
      expect(first).toEqual({ ...expectedPage(all(), mine, feedbackOrder, asFeedback, 2), total: n });
      expect(first.has_more).toBe(true);
    });

    it.each(['slow', '50%', 'FILE_NAME', 'file_', '_name', '%', 'nothing like this'])(
      'search %p is a case-insensitive literal substring',
      async (needle) => {
        const keep = (f: FeedbackIn) => f.message.toLowerCase().includes(needle.toLowerCase());
        const body = await call(feedbackSearchOutput, 'feedback.search', { search: needle, limit: 1000 });
        expect(body).toEqual({
          ...expectedPage(all(), keep, feedbackOrder, asFeedback, 1000),
          total: all().filter(keep).length,
        });
      },
    );

    it('combines user_id and search', async () => {
      const keep = (f: FeedbackIn) => f.user_id === 'user_1' && f.message.includes('note');
      const body = await call(feedbackSearchOutput, 'feedback.search', { user_id: 'user_1', search: 'NOTE' });
      expect(body).toEqual({ ...expectedPage(all(), keep, feedbackOrder, asFeedback, 20), total: 1 });
    });

    it('rejects bad input with 400', async () => {
      for (const input of [{ limit: 0 }, { limit: 1001 }, { user_id: '' }, { search: '' }, { q: 'x' }])
        expect((await h.callTool('an_a', 'feedback.search', input)).status).toBe(400);
    });
  });
});

import { analyticsRetentionOutput } from '@svc/tools-analytics';
import fc from 'fast-check';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import { type RefEvent, type RefFilters, referenceRetention } from '../../testing/retention-reference';
import { DAY, edgeCaseEvents, generatedEvents, testNow } from '../../testing/retention-test-data';

// analytics.retention against the plain reference (retention-reference.ts) on hand-built edge
// cases, a generated data set and fast-check data sets, each in a project of its own.

const NOW = testNow();
const key = (n: string): TestKey => ({
  keyId: `rt_key_${n}`,
  projectId: `rt_${n}`,
  secret: `secret-${n}-0123456789`,
  active: true,
});
const EDGE = key('edge');
const GEN = key('gen');
const edge = edgeCaseEvents(NOW);
const generated = generatedEvents(NOW, 300, 70, 11);

describe('analytics.retention on chDB', () => {
  let h: CoreHarness;

  async function retention(project: string, input: Record<string, unknown>) {
    const res = await h.callTool(project, 'analytics.retention', input);
    expect(res.status).toBe(200);
    return analyticsRetentionOutput.parse(res.body);
  }

  beforeAll(async () => {
    h = await createCoreHarness('core_retention', NOW, [EDGE, GEN]);
    await h.ingestAll(EDGE, 'events', edge.events);
    await h.ingestAll(GEN, 'events', generated);
  });
  afterAll(async () => {
    await h.close();
  });

  it('has the hand-worked 30-day cohort: window edges inclusive, earlier and later first events out', async () => {
    const body = await retention('rt_edge', {});
    expect(body.window).toEqual({
      from: new Date(NOW - 30 * DAY).toISOString(),
      to: new Date(NOW).toISOString(),
    });
    expect(body.max_day).toBe(7);
    expect(body.cohort_size).toBe(edge.inCohort30.length);
    // Day 0 holds everyone, and everyone has reached day 0.
    expect(body.days[0]).toEqual({
      day: 0,
      retained: edge.inCohort30.length,
      eligible: edge.inCohort30.length,
      rate: 1,
    });
    expect(body.days.map((d) => d.day)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  const filterSets: RefFilters[] = [
    {},
    { platform: 'ios' },
    { platform: 'android' },
    { platform: 'ios', app_version: '2.0.0' },
    { utm_source: 'newsletter' },
    { utm_source: 'ads', utm_campaign: 'spring' },
    { utm_medium: 'email' },
    { utm_source: '5' },
    { platform: 'no-such-platform' },
  ];
  const shapes = [
    { days: 30, max_day: 7 },
    { days: 1, max_day: 3 },
    { days: 7, max_day: 0 },
    { days: 60, max_day: 30 },
    { days: 365, max_day: 90 },
  ];
  it.each(filterSets)('agrees with the reference on the edge cases with filters %p', async (filters) => {
    for (const shape of shapes) {
      const body = await retention('rt_edge', { ...shape, ...filters });
      const expected = referenceRetention(edge.events, {
        now: NOW,
        days: shape.days,
        maxDay: shape.max_day,
        filters,
      });
      expect({ cohort_size: body.cohort_size, days: body.days }).toEqual(expected);
    }
  });

  it('puts a user first seen elsewhere into the cohort of a filter whose first match is inside', async () => {
    const all = await retention('rt_edge', { days: 30, max_day: 7 });
    const ios = await retention('rt_edge', { days: 30, max_day: 7, platform: 'ios' });
    // ios: at_midnight (12 days back) and switcher (first iOS event 6 days back, again 2 days later).
    expect(ios.cohort_size).toBe(2);
    expect(ios.days[2]).toMatchObject({ retained: 1, eligible: 2, rate: 0.5 });
    expect(all.cohort_size).toBe(edge.inCohort30.length);
    const nothing = await retention('rt_edge', { platform: 'no-such-platform' });
    expect(nothing.cohort_size).toBe(0);
    for (const d of nothing.days) expect(d).toEqual({ day: d.day, retained: 0, eligible: 0, rate: null });
  });

  it('agrees with the reference on a generated data set', async () => {
    for (const input of [
      { days: 30, max_day: 7 },
      { days: 14, max_day: 14, utm_source: 'google' },
      { days: 45, max_day: 20, platform: 'ios', utm_medium: 'cpc' },
      { days: 3, max_day: 5, app_version: '2.0.0' },
    ]) {
      const { days, max_day, ...filters } = input;
      const body = await retention('rt_gen', input);
      expect(body.cohort_size).toBeGreaterThan(0);
      expect({ cohort_size: body.cohort_size, days: body.days }).toEqual(
        referenceRetention(generated, { now: NOW, days, maxDay: max_day, filters }),
      );
    }
  });

  it('agrees with the reference on random small data sets (fast-check)', async () => {
    let run = 0;
    // Events on whole days around now, at the times where days and the window turn over.
    const times = [
      0,
      1,
      DAY - 1,
      12 * 3_600_000 + 17 * 60_000,
      12 * 3_600_000 + 17 * 60_000 - 1,
      5 * 3_600_000,
    ];
    const event = fc.record({
      user: fc.integer({ min: 0, max: 5 }),
      dayBack: fc.integer({ min: 0, max: 25 }), // today's later times are after now
      time: fc.constantFrom(...times),
      platform: fc.constantFrom('ios', 'android', undefined),
      source: fc.constantFrom('ads', 'mail', undefined),
    });
    const filters = fc.record(
      { platform: fc.constantFrom('ios', 'android'), utm_source: fc.constantFrom('ads', 'mail') },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { minLength: 0, maxLength: 25 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 10 }),
        filters,
        async (raw, days, maxDay, f) => {
          const k = key(`p${run++}`);
          h.keys.set(k.keyId, { projectId: k.projectId, secret: k.secret, active: true });
          const today = Math.floor(NOW / DAY) * DAY;
          const events: RefEvent[] = raw.map((r) => ({
            timestamp: new Date(today - r.dayBack * DAY + r.time).toISOString(),
            user_id: `u${r.user}`,
            event_name: 'e',
            ...(r.platform ? { platform: r.platform } : {}),
            properties: r.source ? { utm_source: r.source } : {},
          }));
          if (events.length > 0) await h.ingest(k, { events }).expect(200);
          const body = await retention(k.projectId, { days, max_day: maxDay, ...f });
          expect({ cohort_size: body.cohort_size, days: body.days }).toEqual(
            referenceRetention(events, { now: NOW, days, maxDay, filters: f }),
          );
        },
      ),
      { numRuns: 40, seed: 20261122 },
    );
  });

  it('refuses max_day outside 0..90, bad days, empty filters and unknown fields with 400', async () => {
    const ok = await retention('rt_edge', { max_day: 90, days: 365 });
    expect(ok.days).toHaveLength(91);
    for (const input of [
      { max_day: 91 },
      { max_day: -1 },
      { max_day: 1.5 },
      { days: 0 },
      { days: 366 },
      { platform: '' },
      { utm_source: '  ' },
      { granularity: 'day' },
      { project_id: 'rt_gen' },
    ])
      expect((await h.callTool('rt_edge', 'analytics.retention', input)).status).toBe(400);
  });
});

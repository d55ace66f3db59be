import { analyticsCohortsOutput } from '@svc/tools-analytics';
import fc from 'fast-check';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import {
  type RefEvent,
  type RefFilters,
  referenceCohorts,
  referencePeriod,
} from '../../testing/retention-reference';
import { DAY, edgeCaseEvents, generatedEvents, testNow } from '../../testing/retention-test-data';
import { isoDate } from '../sql/window';
import { nextPeriod, periodStart } from './cohorts-periods';

// analytics.cohorts against the plain reference (retention-reference.ts): rows per day, ISO week
// and month of day 0, on hand-built boundary cases, a generated set and fast-check data sets.

const NOW = testNow();
const key = (n: string): TestKey => ({
  keyId: `co_key_${n}`,
  projectId: `co_${n}`,
  secret: `secret-${n}-0123456789`,
  active: true,
});
const EDGE = key('edge');
const GEN = key('gen');
const edge = edgeCaseEvents(NOW);
const generated = generatedEvents(NOW, 300, 80, 5);
const GRANULARITIES = ['day', 'week', 'month'] as const;

describe('cohort periods', () => {
  it('start on the day, the ISO Monday and the 1st, and step to the next', () => {
    const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / DAY;
    // 2024-03-03 is a Sunday, 2024-03-04 a Monday; 2024 is a leap year.
    expect(isoDate(periodStart(day('2024-03-03'), 'week'))).toBe('2024-02-26');
    expect(isoDate(periodStart(day('2024-03-04'), 'week'))).toBe('2024-03-04');
    expect(isoDate(periodStart(day('2024-03-10'), 'week'))).toBe('2024-03-04');
    expect(isoDate(periodStart(day('1970-01-01'), 'week'))).toBe('1969-12-29');
    expect(isoDate(periodStart(day('2024-02-29'), 'month'))).toBe('2024-02-01');
    expect(isoDate(nextPeriod(day('2024-02-01'), 'month'))).toBe('2024-03-01');
    expect(isoDate(nextPeriod(day('2024-12-01'), 'month'))).toBe('2025-01-01');
    expect(isoDate(nextPeriod(day('2024-12-30'), 'week'))).toBe('2025-01-06');
    expect(isoDate(periodStart(day('2024-12-31'), 'day'))).toBe('2024-12-31');
  });

  it('agree with the reference period on any date (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10_957, max: 47_482 }), fc.constantFrom(...GRANULARITIES), (day, g) => {
        const start = periodStart(day, g);
        expect(isoDate(start)).toBe(referencePeriod(isoDate(day), g));
        expect(start <= day && day < nextPeriod(start, g)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('analytics.cohorts on chDB', () => {
  let h: CoreHarness;

  async function cohorts(project: string, input: Record<string, unknown>) {
    const res = await h.callTool(project, 'analytics.cohorts', input);
    expect(res.status).toBe(200);
    return analyticsCohortsOutput.parse(res.body);
  }

  beforeAll(async () => {
    h = await createCoreHarness('core_cohorts', NOW, [EDGE, GEN]);
    await h.ingestAll(EDGE, 'events', edge.events);
    await h.ingestAll(GEN, 'events', generated);
  });
  afterAll(async () => {
    await h.close();
  });

  it('defaults to daily cohorts over 30 days, one row per UTC date of the window, sizes adding up', async () => {
    const body = await cohorts('co_edge', {});
    expect(body.granularity).toBe('day');
    expect(body.max_day).toBe(7);
    expect(body.window.to).toBe(new Date(NOW).toISOString());
    expect(body.cohorts).toHaveLength(31); // the window starts at 12:17, 30 days back
    expect(body.cohorts[0]!.cohort).toBe(isoDate(Math.floor((NOW - 30 * DAY) / DAY)));
    expect(body.cohorts.at(-1)!.cohort).toBe(isoDate(Math.floor(NOW / DAY)));
    expect(body.cohorts.reduce((s, c) => s + c.size, 0)).toBe(edge.inCohort30.length);
  });

  it('splits users first seen on Sunday 23:59:59.999 and Monday 00:00 into two ISO weeks', async () => {
    const body = await cohorts('co_edge', { granularity: 'week', platform: 'android' });
    const nonEmpty = body.cohorts.filter((c) => c.size > 0);
    expect(nonEmpty.map((c) => c.size)).toEqual([1, 1]);
    for (const c of body.cohorts) expect(new Date(`${c.cohort}T00:00:00Z`).getUTCDay()).toBe(1);
    // The Sunday user is back on Monday (day 1); the Monday user on Tuesday (day 1 too).
    for (const c of nonEmpty) expect(c.days[1]).toMatchObject({ retained: 1, eligible: 1, rate: 1 });
  });

  it('splits users first seen on a month’s last millisecond and the next 1st into two months', async () => {
    const last = await cohorts('co_edge', { granularity: 'month', days: 60, utm_medium: 'email' });
    const first = await cohorts('co_edge', { granularity: 'month', days: 60, utm_campaign: 'spring' });
    const month = (b: typeof last) => b.cohorts.filter((c) => c.size > 0).map((c) => c.cohort);
    const [a] = month(last);
    const [b] = month(first);
    expect(a! < b!).toBe(true);
    expect(b!.endsWith('-01')).toBe(true);
    // month_last's second event is 2 ms later, on the 1st: day 1.
    expect(last.cohorts.find((c) => c.cohort === a)!.days[1]).toMatchObject({ retained: 1 });
  });

  const filterSets: RefFilters[] = [
    {},
    { platform: 'ios' },
    { platform: 'web' },
    { utm_source: 'ads' },
    { utm_source: 'newsletter', utm_medium: 'email' },
    { app_version: 'none' },
  ];
  it.each(filterSets)('agrees with the reference on the edge cases with filters %p', async (filters) => {
    for (const granularity of GRANULARITIES)
      for (const shape of [
        { days: 30, max_day: 7 },
        { days: 1, max_day: 2 },
        { days: 60, max_day: 21 },
      ]) {
        const body = await cohorts('co_edge', { ...shape, granularity, ...filters });
        expect(body.cohorts).toEqual(
          referenceCohorts(edge.events, {
            now: NOW,
            days: shape.days,
            maxDay: shape.max_day,
            filters,
            granularity,
          }),
        );
      }
  });

  it('agrees with the reference on a generated data set', async () => {
    for (const granularity of GRANULARITIES)
      for (const input of [
        { days: 75, max_day: 14 },
        { days: 30, max_day: 7, utm_source: 'google', platform: 'ios' },
      ]) {
        const { days, max_day, ...filters } = input;
        const body = await cohorts('co_gen', { ...input, granularity });
        expect(body.cohorts.some((c) => c.size > 1)).toBe(true);
        expect(body.cohorts).toEqual(
          referenceCohorts(generated, { now: NOW, days, maxDay: max_day, filters, granularity }),
        );
      }
  });

  it('agrees with the reference on random small data sets (fast-check)', async () => {
    let run = 0;
    const times = [0, 1, DAY - 1, 12 * 3_600_000 + 17 * 60_000, 12 * 3_600_000 + 17 * 60_000 - 1];
    const event = fc.record({
      user: fc.integer({ min: 0, max: 5 }),
      dayBack: fc.integer({ min: 0, max: 70 }),
      time: fc.constantFrom(...times),
      platform: fc.constantFrom('ios', 'android', undefined),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { maxLength: 25 }),
        fc.integer({ min: 1, max: 62 }),
        fc.integer({ min: 0, max: 10 }),
        fc.constantFrom(...GRANULARITIES),
        fc.record({ platform: fc.constantFrom('ios', 'android') }, { requiredKeys: [] }),
        async (raw, days, maxDay, granularity, filters) => {
          const k = key(`p${run++}`);
          h.keys.set(k.keyId, { projectId: k.projectId, secret: k.secret, active: true });
          const today = Math.floor(NOW / DAY) * DAY;
          const events: RefEvent[] = raw.map((r) => ({
            timestamp: new Date(today - r.dayBack * DAY + r.time).toISOString(),
            user_id: `u${r.user}`,
            event_name: 'e',
            ...(r.platform ? { platform: r.platform } : {}),
          }));
          if (events.length > 0) await h.ingest(k, { events }).expect(200);
          const body = await cohorts(k.projectId, { days, max_day: maxDay, granularity, ...filters });
          expect(body.cohorts).toEqual(
            referenceCohorts(events, { now: NOW, days, maxDay, filters, granularity }),
          );
        },
      ),
      { numRuns: 40, seed: 4242 },
    );
  });

  it('refuses an unknown granularity, max_day outside 0..90 and unknown fields with 400', async () => {
    for (const input of [{ granularity: 'year' }, { granularity: 'WEEK' }, { max_day: 91 }, { cohort: 'x' }])
      expect((await h.callTool('co_edge', 'analytics.cohorts', input)).status).toBe(400);
  });
});

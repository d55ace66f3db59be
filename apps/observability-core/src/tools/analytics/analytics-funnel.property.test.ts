import { analyticsFunnelOutput } from '@svc/tools-analytics';
import fc from 'fast-check';
import { type CoreHarness, createCoreHarness } from '../../testing/core-harness';
import {
  type FunnelQuery,
  type RawEvent,
  referenceFunnelSteps,
  referenceFunnelUsers,
} from '../../testing/funnel-reference';

// Property: on random small data sets analytics.funnel agrees with the plain reference. Times sit
// on a coarse grid (plus 0, 1 or 500 ms) so ties, sub-second order and events just inside and
// outside the window and the day range come up often; names come from a tiny alphabet so steps
// repeat and users skip steps; filters are often absent, sometimes match nothing. Each data set
// goes into a project of its own.

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const NOW = Math.floor(Date.now() / HOUR) * HOUR + 17 * MIN + 345;
const NAMES = ['a', 'b', 'c'];

const eventArb = fc.record({
  user_id: fc.constantFrom('u1', 'u2'),
  event_name: fc.constantFrom(...NAMES),
  // A grid of 3 hours over 27 hours before now and 3 hours after: same-ms ties, 1 ms apart,
  // 500 ms apart, exactly a window apart, outside the day range, in the future.
  timestamp: fc
    .tuple(fc.integer({ min: -1, max: 9 }), fc.constantFrom(0, 1, 500))
    .map(([slot, ms]) => NOW - slot * 3 * HOUR - ms),
  platform: fc.constantFrom(undefined, 'ios', 'android'),
  properties: fc.constantFrom(
    undefined,
    { utm_source: 'x' },
    { utm_source: 'y', utm_campaign: 'c1' },
    { utm_source: '' },
  ),
});

const queryArb = fc.record({
  steps: fc.array(fc.constantFrom(...NAMES), { minLength: 2, maxLength: 4 }),
  days: fc.constantFrom(1, 2),
  window_hours: fc.constantFrom(1, 3, 6),
  platform: fc.constantFrom(undefined, undefined, 'ios', 'web'),
  utm_source: fc.constantFrom(undefined, undefined, 'x', 'y'),
});

const iso = (t: number) => new Date(t).toISOString();
const asRecord = (e: RawEvent) => ({
  timestamp: iso(e.timestamp),
  event_name: e.event_name,
  user_id: e.user_id,
  ...(e.platform === undefined ? {} : { platform: e.platform }),
  ...(e.properties === undefined ? {} : { properties: e.properties }),
});
const defined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

describe('analytics.funnel properties', () => {
  let h: CoreHarness;
  let runs = 0;

  beforeAll(async () => {
    h = await createCoreHarness('core_funnel_prop', NOW, []);
  });
  afterAll(async () => {
    await h.close();
  });

  it('agrees with the reference on random small data sets (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArb, { minLength: 5, maxLength: 40 }),
        fc.array(queryArb, { minLength: 1, maxLength: 3 }),
        async (events, queries) => {
          const n = runs++;
          const key = {
            keyId: `fp_key_${n}`,
            projectId: `fp_${n}`,
            secret: `secret-fp-${n}-0123456789`,
            active: true,
          };
          h.keys.set(key.keyId, key);
          if (events.length > 0) await h.ingest(key, { events: events.map(asRecord) }).expect(200);
          for (const q of queries) {
            const input = defined(q);
            const res = await h.callTool(key.projectId, 'analytics.funnel', input);
            expect(res.status).toBe(200);
            const filters = defined({
              platform: q.platform,
              utm_source: q.utm_source,
            }) as FunnelQuery['filters'];
            const users = referenceFunnelUsers(events, {
              steps: q.steps,
              fromMs: NOW - q.days * DAY,
              toMs: NOW,
              windowMs: q.window_hours * HOUR,
              filters,
            });
            const { window: _w, ...body } = analyticsFunnelOutput.parse(res.body);
            expect(body).toEqual({ window_hours: q.window_hours, ...referenceFunnelSteps(q.steps, users) });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

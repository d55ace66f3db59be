import { analyticsFunnelOutput } from '@svc/tools-analytics';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import {
  type FunnelQuery,
  type RawEvent,
  referenceFunnelSteps,
  referenceFunnelUsers,
} from '../../testing/funnel-reference';

// analytics.funnel on chDB against hand-placed edge cases. Expected answers come from the plain
// reference (funnel-reference.ts); the cases that pin the definition itself are also stated by hand.

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const NOW = Math.floor(Date.now() / HOUR) * HOUR + 17 * MIN + 345;
const T = NOW - 3 * DAY;
const key: TestKey = { keyId: 'fn_key', projectId: 'fn_p', secret: 'secret-fn-0123456789', active: true };
const other: TestKey = { keyId: 'fn_key_o', projectId: 'fn_o', secret: 'secret-fo-0123456789', active: true };

const OPEN = 'app_open';
const VIEW = 'view_item';
const CART = 'add_to_cart';
const BUY = 'purchase';

function ev(user: string, name: string, t: number, extra: Partial<RawEvent> = {}): RawEvent {
  return { user_id: user, event_name: name, timestamp: t, platform: 'ios', ...extra };
}

const events: RawEvent[] = [
  ev('full', OPEN, T),
  ev('full', VIEW, T + HOUR),
  ev('full', CART, T + 2 * HOUR),
  ev('full', BUY, T + 3 * HOUR),
  // The same millisecond, sent in reverse step order: non-decreasing still holds.
  ev('tie', CART, T),
  ev('tie', VIEW, T),
  ev('tie', OPEN, T),
  // 100 ms apart inside one second: seconds would make them a tie, milliseconds do not.
  ev('subsecond', VIEW, T + 100),
  ev('subsecond', OPEN, T + 200),
  ev('skip', OPEN, T),
  ev('skip', CART, T + HOUR),
  ev('skip', BUY, T + 2 * HOUR),
  ev('late', OPEN, T),
  ev('late', VIEW, T + 25 * HOUR),
  ev('edge', OPEN, T),
  ev('edge', VIEW, T + DAY),
  ev('edge', CART, T + DAY + 1),
  ev('restart', OPEN, T - 2 * DAY),
  ev('restart', OPEN, T),
  ev('restart', VIEW, T + HOUR),
  ev('repeat', OPEN, T),
  ev('repeat', OPEN, T + 2 * HOUR),
  ev('repeat', VIEW, T + HOUR),
  ev('before_window', OPEN, NOW - 14 * DAY - 1),
  ev('before_window', VIEW, NOW - 14 * DAY + HOUR),
  ev('at_window_start', OPEN, NOW - 14 * DAY),
  ev('at_window_start', VIEW, NOW - 14 * DAY + HOUR),
  ev('at_now', OPEN, NOW),
  ev('future', OPEN, NOW + HOUR),
  ev('mixed', OPEN, T, {
    platform: 'android',
    properties: { utm_source: 'newsletter', utm_campaign: 'spring' },
  }),
  ev('mixed', VIEW, T + MIN, {
    platform: 'ios',
    properties: { utm_source: 'newsletter', utm_medium: 'email' },
  }),
  ev('mixed', CART, T + 2 * MIN, {
    platform: 'android',
    app_version: '2.0.0',
    properties: { utm_source: 'ads' },
  }),
  ev('no_platform', OPEN, T, { platform: undefined, properties: { utm_source: '' } }),
  ev('no_platform', VIEW, T + MIN, { platform: undefined }),
];

const iso = (t: number) => new Date(t).toISOString();
const asRecord = (e: RawEvent) => ({
  timestamp: iso(e.timestamp),
  event_name: e.event_name,
  user_id: e.user_id,
  ...(e.platform === undefined ? {} : { platform: e.platform }),
  ...(e.app_version === undefined ? {} : { app_version: e.app_version }),
  ...(e.properties === undefined ? {} : { properties: e.properties }),
});

type Filters = FunnelQuery['filters'];
interface Call extends Filters {
  steps: string[];
  days?: number;
  window_hours?: number;
}

describe('analytics.funnel on chDB', () => {
  let h: CoreHarness;

  async function funnel(input: Call) {
    const res = await h.callTool(key.projectId, 'analytics.funnel', input);
    expect(res.status).toBe(200);
    return analyticsFunnelOutput.parse(res.body);
  }

  function expected(input: Call) {
    const { steps, days = 14, window_hours = 24, ...filters } = input;
    const users = referenceFunnelUsers(events, {
      steps,
      fromMs: NOW - days * DAY,
      toMs: NOW,
      windowMs: window_hours * HOUR,
      filters,
    });
    return {
      window: { from: iso(NOW - days * DAY), to: iso(NOW) },
      window_hours,
      ...referenceFunnelSteps(steps, users),
    };
  }

  beforeAll(async () => {
    h = await createCoreHarness('core_funnel', NOW, [key, other]);
    await h.ingest(key, { events: events.map(asRecord) }).expect(200);
    // Another project's users all convert; none of them may count here.
    const theirs = ['x', 'y', 'z'].flatMap((u) => [OPEN, VIEW, CART, BUY].map((n, i) => ev(u, n, T + i)));
    await h.ingest(other, { events: theirs.map(asRecord) }).expect(200);
  });
  afterAll(async () => {
    await h.close();
  });

  it.each<[string, Call]>([
    ['four steps, defaults', { steps: [OPEN, VIEW, CART, BUY] }],
    ['two steps', { steps: [OPEN, VIEW] }],
    ['a 48 hour window', { steps: [OPEN, VIEW, CART], window_hours: 48 }],
    ['a 1 hour window', { steps: [OPEN, VIEW, CART], window_hours: 1 }],
    ['the last day only', { steps: [OPEN, VIEW], days: 1 }],
    ['a repeated step', { steps: [OPEN, VIEW, OPEN] }],
    ['the same step twice in a row', { steps: [VIEW, VIEW] }],
    ['steps in another order', { steps: [VIEW, OPEN] }],
    ['a step nobody did', { steps: ['nothing', OPEN] }],
    ['platform filter', { steps: [OPEN, VIEW, CART], platform: 'android' }],
    ['utm_source filter', { steps: [OPEN, VIEW, CART], utm_source: 'newsletter' }],
    [
      'utm_campaign and utm_medium filters',
      { steps: [OPEN, VIEW], utm_campaign: 'spring', utm_medium: 'email' },
    ],
    ['app_version filter', { steps: [CART, BUY], app_version: '2.0.0' }],
    ['a filter value nobody has', { steps: [OPEN, VIEW], platform: 'windows' }],
  ])('%s agrees with the reference', async (_, input) => {
    expect(await funnel(input)).toEqual(expected(input));
  });

  it('reads the definition as docs/semantics.md states it (cases stated by hand)', async () => {
    const body = await funnel({ steps: [OPEN, VIEW, CART, BUY] });
    // Step 1: every user with app_open in the window (not before_window's, 1 ms too early, nor
    // future's). Step 2: full, tie (same ms), edge (exactly 24 h), restart (the later start),
    // repeat, at_window_start, mixed, no_platform; not subsecond (view 100 ms before open) nor
    // late (25 h). Step 3: full, tie, mixed; not edge (24 h + 1 ms). Step 4: full.
    expect(body.steps.map((s) => s.users)).toEqual([12, 8, 3, 1]);
    expect(body.steps[1]!.conversion_from_previous).toBeCloseTo(8 / 12, 12);
    expect(body.steps[3]!.conversion_from_first).toBeCloseTo(1 / 12, 12);
    expect(body.overall_conversion).toBeCloseTo(1 / 12, 12);
    expect(body.steps[0]!.conversion_from_previous).toBe(1);
    // One event fills consecutive repeated steps (non-decreasing, not increasing, timestamps).
    const twice = await funnel({ steps: [VIEW, VIEW], platform: 'ios', days: 1 });
    expect(twice.steps.map((s) => s.users)).toEqual([0, 0]);
    expect(twice.overall_conversion).toBeNull();
    expect(twice.steps[1]!.conversion_from_previous).toBeNull();
    const again = await funnel({ steps: [VIEW, VIEW] });
    expect(again.steps[1]!.users).toBe(again.steps[0]!.users);
  });

  it.each([
    [{ steps: [OPEN] }],
    [{ steps: Array.from({ length: 11 }, (_, i) => `e${i}`) }],
    [{ steps: [OPEN, ''] }],
    [{}],
    [{ steps: [OPEN, VIEW], window_hours: 0 }],
    [{ steps: [OPEN, VIEW], window_hours: 1.5 }],
    [{ steps: [OPEN, VIEW], days: 366 }],
    [{ steps: [OPEN, VIEW], platform: '' }],
    [{ steps: [OPEN, VIEW], country: 'de' }],
  ])('refuses %j with 400', async (input) => {
    const res = await h.callTool(key.projectId, 'analytics.funnel', input);
    expect(res.status).toBe(400);
  });

  it('takes ten steps', async () => {
    const steps = [OPEN, VIEW, CART, BUY, OPEN, VIEW, CART, BUY, OPEN, VIEW];
    expect(await funnel({ steps })).toEqual(expected({ steps }));
  });
});

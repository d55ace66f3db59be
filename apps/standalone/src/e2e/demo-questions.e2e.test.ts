import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CAMPAIGN_INTENT,
  CART_FIX_RELEASE,
  CHECKOUT_EXPERIMENT,
  CRASH_ISSUES,
  compareVersions,
  crashChance,
  type DemoProject,
  FUNNEL_STEPS,
  generateDemoProject,
  LAUNCH_EXPERIMENT,
  LEAKY_RELEASE,
  PURCHASE_LIFT,
  RECURRING_QUIET,
  RISK_SDK_RELEASE,
  SLOW_CHECKOUT,
  SLOW_START_RELEASE,
} from '@svc/demo-data';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, connectMcp } from './support';

// The questions the demo is built to answer (the README's demo stories), asked the way an
// assistant would, over MCP against `pnpm start`'s stack: a few calls each. Expected answers come
// from the demo's own records and the generator's constants (which issue a release fixed or
// brought, the quiet spell, campaign intents, the experiments' lift), never from fixed numbers.
// The recall files and the verifier's release claim are asked in recall.e2e and verify.e2e.

let stack: SpawnedStack;
let mcp: Client;
let demo: DemoProject;

beforeAll(async () => {
  stack = await spawnStack();
  demo = generateDemoProject(stack.ready.demo!);
  mcp = await connectMcp(stack.ready.urls.mcp, bearer(stack.ready.token!));
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await stack?.dispose();
});

async function call<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const result = await mcp.callTool({ name, arguments: args });
  expect(result.isError).toBeFalsy();
  return result.structuredContent as T;
}

interface Health {
  version: string;
  found: boolean;
  sessions: number;
  crash_free_session_rate: number | null;
  startup_p95_ms: number | null;
  grade: string | null;
}

interface CrashStats {
  window: { from: string; to: string };
  total: number;
  signatures: { signature: string; error_type: string; count: number; first_app_version: string }[];
}

const DAY = 24 * 60 * 60_000;
/** The demo's releases, oldest first, as the tools see them (analytics.dimensions' app_version). */
const versionsOf = (demo: DemoProject) =>
  [...new Set(demo.sessions.map((s) => s.app_version))].sort(compareVersions);
/** Crash statistics of one version over the demo's whole window. */
const statsOf = (appVersion: string) =>
  call<CrashStats>('crash.stats', { days: demo.options.days, app_version: appVersion });

interface SpanNode {
  operation: string;
  service: string | null;
  self_ms: number;
  orphan: boolean;
  children: SpanNode[];
}

const flatten = (nodes: SpanNode[]): SpanNode[] => nodes.flatMap((n) => [n, ...flatten(n.children)]);

describe('the demo answers', () => {
  it('which release regressed startup? (release.health, one call)', async () => {
    const versions = ['2.3.0', '2.4.0', '2.4.1', '2.5.0'];
    const { releases: health } = await call<{ releases: Health[] }>('release.health', {
      versions: versions.join(','),
    });
    const slowest = [...health].sort((a, b) => b.startup_p95_ms! - a.startup_p95_ms!);
    expect(slowest[0]!.version).toBe(SLOW_START_RELEASE);
    for (const other of slowest.slice(1))
      expect(slowest[0]!.startup_p95_ms!).toBeGreaterThan(2 * other.startup_p95_ms!);
    const grade = (v: string) => health.find((h) => h.version === v)!.grade;
    expect(grade('2.4.1')).toBe('A');
    expect(['C', 'D', 'F']).toContain(grade(SLOW_START_RELEASE));
  });

  it('which sessions leak memory? (apm.memory_growth, one call)', async () => {
    const { items } = await call<{ items: { session_id: string; slope_mb_per_min: number; r2: number }[] }>(
      'apm.memory_growth',
      { limit: 3 },
    );
    const versionOf = new Map(demo.sessions.map((s) => [s.session_id, s.app_version]));
    expect(items).toHaveLength(3);
    for (const item of items) {
      expect(versionOf.get(item.session_id)).toBe(LEAKY_RELEASE);
      expect(item.slope_mb_per_min).toBeGreaterThan(2.5);
      expect(item.r2).toBeGreaterThan(0.9);
    }
  });

  it('which endpoint got slower, and where in the trace is the time? (trace.aggregate twice, trace.search, trace.get)', async () => {
    type Aggregate = { operations: { operation: string; spans: number; p50_ms: number }[] };
    const [recent, fortnight] = await Promise.all([
      call<Aggregate>('trace.aggregate', { days: 3 }),
      call<Aggregate>('trace.aggregate', { days: 14 }),
    ]);
    const before = new Map(fortnight.operations.map((o) => [o.operation, o.p50_ms]));
    const ratios = recent.operations
      .filter((o) => o.spans >= 10 && o.operation.includes(' /api/'))
      .map((o) => ({ operation: o.operation, ratio: o.p50_ms / before.get(o.operation)! }))
      .sort((a, b) => b.ratio - a.ratio);
    expect(ratios[0]!.operation).toBe(`POST ${SLOW_CHECKOUT.route}`);
    expect(ratios[0]!.ratio).toBeGreaterThan(1.3);

    const { items } = await call<{ items: { trace_id: string }[] }>('trace.search', {
      operation: `POST ${SLOW_CHECKOUT.route}`,
      min_duration_ms: 1300,
      limit: 1,
    });
    expect(items).toHaveLength(1);
    const trace = await call<{ spans: SpanNode[] }>('trace.get', { trace_id: items[0]!.trace_id });
    const [heaviest] = flatten(trace.spans).sort((a, b) => b.self_ms - a.self_ms);
    expect(heaviest).toMatchObject({ operation: 'fraud.score', service: 'risk' });
  });

  it('which crash did the cart fix remove? (crash.stats by version, crash.by_signature, crash.get)', async () => {
    const cart = CRASH_ISSUES.find((issue) => issue.fixedIn === CART_FIX_RELEASE)!;
    const versions = versionsOf(demo);
    const stats = new Map(await Promise.all(versions.map(async (v) => [v, await statsOf(v)] as const)));
    const seenFrom = (from: (v: string) => boolean) =>
      new Set(versions.filter(from).flatMap((v) => stats.get(v)!.signatures.map((s) => s.signature)));
    const before = stats.get(versions.filter((v) => compareVersions(v, CART_FIX_RELEASE) < 0).at(-1)!)!;
    const sinceFix = seenFrom((v) => compareVersions(v, CART_FIX_RELEASE) >= 0);
    // The issues of the release before the fix that no release since has: the largest is the cart crash.
    const gone = before.signatures.filter((s) => !sinceFix.has(s.signature));
    expect(gone[0]!.error_type).toBe(cart.error_type);
    expect(gone[0]!.count).toBeGreaterThanOrEqual(5);
    // The fixed releases did crash, in other ways, so the absence is the fix.
    for (const v of versions.filter((v) => compareVersions(v, CART_FIX_RELEASE) >= 0))
      expect(stats.get(v)!.total).toBeGreaterThan(10);
    // It is the cart's crash: its stack goes through adding to the cart, after a tap on the button.
    const { items } = await call<{ items: { event_id: string }[] }>('crash.by_signature', {
      signature: gone[0]!.signature,
      limit: 1,
    });
    const { crash } = await call<{
      crash: {
        symbolicated_frames: { function: string }[] | null;
        breadcrumbs: { category: string; message: string }[];
      };
    }>('crash.get', { event_id: items[0]!.event_id });
    // The raw frames are addresses; the demo's debug files were uploaded before its crashes.
    expect(crash.symbolicated_frames!.some((f) => /cart/i.test(f.function))).toBe(true);
    expect(crash.breadcrumbs.at(-1)!.message).toBe(`tap on ${cart.touch}`);
  });

  it('which crash did the newest release bring? (crash.stats by version)', async () => {
    const risk = CRASH_ISSUES.find((issue) => issue.introducedIn !== undefined)!;
    const versions = versionsOf(demo);
    expect(versions.at(-1)).toBe(RISK_SDK_RELEASE);
    const newest = await statsOf(RISK_SDK_RELEASE);
    const brought = newest.signatures.filter((s) => s.first_app_version === RISK_SDK_RELEASE);
    expect(brought[0]!.error_type).toBe(risk.error_type);
    expect(brought[0]!.count).toBeGreaterThanOrEqual(3);
    for (const older of versions.slice(0, -1)) {
      const { signatures } = await statsOf(older);
      expect(signatures.map((s) => s.signature)).not.toContain(brought[0]!.signature);
    }
  });

  it('which Android crash went quiet for days and came back? (crash.stats, crash.by_signature, crash.recurrence)', async () => {
    const recurring = CRASH_ISSUES.find((issue) => issue.recurs)!;
    const days = demo.options.days;
    const { signatures } = await call<CrashStats>('crash.stats', { days });
    // Issues frequent enough that a silence of days means something: the longest silence against each one's pace.
    const silences = await Promise.all(
      signatures
        .filter((s) => s.count >= 10)
        .map(async ({ signature, error_type, count }) => {
          const { items } = await call<{ items: { timestamp: string }[] }>('crash.by_signature', {
            signature,
            limit: 1000,
          });
          const times = items.map((i) => Date.parse(i.timestamp)).sort((a, b) => a - b);
          let gap = { from: 0, ms: 0, after: 0 };
          for (let i = 1; i < times.length; i++)
            if (times[i]! - times[i - 1]! > gap.ms)
              gap = { from: times[i - 1]!, ms: times[i]! - times[i - 1]!, after: times.length - i };
          return { signature, error_type, gap, paces: (gap.ms * count) / (days * DAY) };
        }),
    );
    // Came back: crashing again after the silence, not one straggler on an old release (the cart
    // crash after its fix has those).
    const [quiet] = silences.filter((s) => s.gap.after >= 5).sort((a, b) => b.paces - a.paces);
    expect(quiet!.error_type).toBe(recurring.error_type);
    expect(quiet!.gap.ms).toBeGreaterThanOrEqual(
      (RECURRING_QUIET.fromAgo - RECURRING_QUIET.toAgo) * days * DAY,
    );
    const back = await call<{ recurred: boolean; count_since: number; first_since: string }>(
      'crash.recurrence',
      {
        signature: quiet!.signature,
        since: new Date(quiet!.gap.from + 1).toISOString(),
      },
    );
    expect(back.recurred).toBe(true);
    expect(Date.parse(back.first_since)).toBe(quiet!.gap.from + quiet!.gap.ms);
    expect(back.count_since).toBeGreaterThanOrEqual(5);
  });

  it('how often does each release crash? (release.health over the window: sessions and crash-free rates by version)', async () => {
    const versions = versionsOf(demo);
    const { window, releases } = await call<{ window: { from: string }; releases: Health[] }>(
      'release.health',
      {
        versions: versions.join(','),
        days: demo.options.days,
      },
    );
    const from = Date.parse(window.from);
    for (const release of releases) {
      const sessions = demo.sessions.filter(
        (s) => s.app_version === release.version && Date.parse(s.started_at) >= from,
      );
      const crashed = sessions.filter((s) => s.status === 'crashed').length;
      expect(release.sessions).toBe(sessions.length);
      expect(release.crash_free_session_rate).toBeCloseTo(1 - crashed / sessions.length, 6);
    }
    // A shop's volume: about a thousand sessions a day, a few dozen crashes.
    const total = releases.reduce((sum, r) => sum + r.sessions, 0);
    expect(total / demo.options.days).toBeGreaterThan(500);
    // Each release crashes at the rates per 10,000 sessions of the issues it can have (Poisson, 4 sigma).
    for (const release of releases) {
      const sessions = demo.sessions.filter(
        (s) => s.app_version === release.version && Date.parse(s.started_at) >= from,
      );
      const expected = sessions.reduce(
        (sum, s) =>
          sum +
          crashChance({
            platform: s.platform,
            appVersion: s.app_version,
            atMs: Date.parse(s.started_at),
            nowMs: demo.options.now,
            days: demo.options.days,
          }),
        0,
      );
      const crashed = (1 - release.crash_free_session_rate!) * release.sessions;
      expect(Math.abs(crashed - expected)).toBeLessThan(4 * Math.sqrt(expected) + 1);
    }
  });

  it('which campaign brings buyers and which does not? (analytics.dimensions, analytics.funnel per campaign)', async () => {
    const { dimensions } = await call<{ dimensions: { utm_campaign: { values: { value: string }[] } } }>(
      'analytics.dimensions',
      { days: demo.options.days },
    );
    const campaigns = dimensions.utm_campaign.values.map((v) => v.value);
    const users = new Map<string, number>();
    expect(campaigns.sort()).toEqual(Object.keys(CAMPAIGN_INTENT).sort());
    const conversion = new Map(
      await Promise.all(
        campaigns.map(async (utm_campaign) => {
          const funnel = await call<{ steps: { users: number }[]; overall_conversion: number }>(
            'analytics.funnel',
            {
              steps: [...FUNNEL_STEPS],
              days: demo.options.days,
              utm_campaign,
            },
          );
          expect(funnel.steps[0]!.users).toBeGreaterThan(30);
          users.set(utm_campaign, funnel.steps[0]!.users);
          return [utm_campaign, funnel.overall_conversion] as const;
        }),
      ),
    );
    const byIntent = [...campaigns].sort((a, b) => CAMPAIGN_INTENT[a]! - CAMPAIGN_INTENT[b]!);
    const worst = byIntent[0]!;
    const best = byIntent.at(-1)!;
    // The campaigns with enough users to tell: each converts better than the worst one.
    for (const c of campaigns.filter((c) => c !== worst && users.get(c)! >= 100))
      expect(conversion.get(c)!).toBeGreaterThan(conversion.get(worst)!);
    expect(conversion.get(best)!).toBeGreaterThan(2 * conversion.get(worst)!);
  });

  it('which A/B test works? (experiment.results for each test)', async () => {
    interface Variant {
      variant: string;
      exposed: number;
      lift: number | null;
      z_test: { z: number; significant: boolean; ci_low: number } | null;
    }
    const results = async (experiment_key: string) =>
      (await call<{ variants: Variant[] }>('experiment.results', { experiment_key, days: demo.options.days }))
        .variants;
    const checkout = await results(CHECKOUT_EXPERIMENT.experiment_key);
    const treated = checkout.find((v) => v.variant !== CHECKOUT_EXPERIMENT.baseline)!;
    expect(treated.exposed).toBeGreaterThan(100);
    expect(treated.z_test!.significant).toBe(true);
    expect(treated.z_test!.ci_low).toBeGreaterThan(0);
    // Per user the lift is smaller than the button's effect on each checkout (PURCHASE_LIFT): a user
    // who checks out again and again buys in the end either way.
    expect(treated.lift!).toBeGreaterThan((PURCHASE_LIFT - 1) / 6);
    expect(treated.lift!).toBeLessThan(PURCHASE_LIFT - 1);
    // The banner's copy changes nothing: no variant's difference comes near the checkout button's.
    for (const v of (await results(LAUNCH_EXPERIMENT.experiment_key)).filter((v) => v.z_test !== null))
      expect(Math.abs(v.z_test!.z)).toBeLessThan(treated.z_test!.z / 1.5);
  });
});

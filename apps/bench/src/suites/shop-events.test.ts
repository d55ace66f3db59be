import { DEMO_EXPERIMENTS, FUNNEL_STEPS } from '@svc/demo-data';
import { type BenchCore, startBenchCore } from '../core-harness';
import { loadShopEvents } from './shop-events';

// The in-engine generator must keep the demo generator's shape: funnel steps in order per
// session, a sticky variant per user, a real purchase lift only for checkout_cta_v2, iOS
// converting better than the web, and about the requested volume. Checked on the rows read back.

interface Ev {
  event_name: string;
  ts: string;
  user_id: string;
  session_id: string;
  platform: string;
  experiment_key: string;
  variant: string;
}

let core: BenchCore;
let events: Ev[];

beforeAll(async () => {
  core = await startBenchCore();
  // `now` on the latest Monday 00:00 UTC: the weekday factors depend on the dates, so every run
  // gets the same data set, shifted by whole weeks (recent enough for the events' TTL).
  const week = 7 * 86_400_000;
  const monday = Date.UTC(1970, 0, 5);
  await loadShopEvents(core.ch, 'prj_t', 30_000, monday + Math.floor((Date.now() - monday) / week) * week);
  events = await core.ch.query<Ev>(
    `SELECT event_name, toString(toUnixTimestamp64Milli(timestamp)) AS ts, user_id, session_id, platform,
       experiment_key, variant FROM events WHERE project_id = 'prj_t'`,
  );
});
afterAll(() => core.close());

const bySession = () => {
  const m = new Map<string, Ev[]>();
  for (const e of events) m.set(e.session_id, [...(m.get(e.session_id) ?? []), e]);
  return m;
};

/** Sessions with a purchase / sessions, per group. */
function purchaseRate(group: (session: Ev[]) => string): Map<string, number> {
  const counts = new Map<string, [number, number]>();
  for (const list of bySession().values()) {
    const g = group(list);
    const c = counts.get(g) ?? [0, 0];
    c[0] += 1;
    if (list.some((e) => e.event_name === 'purchase')) c[1] += 1;
    counts.set(g, c);
  }
  return new Map([...counts].map(([g, [n, p]]) => [g, p / n]));
}

const variantIn = (key: string) => (list: Ev[]) =>
  list.find((e) => e.event_name === '$exposure' && e.experiment_key === key)!.variant;

describe('loadShopEvents', () => {
  it('inserts about the requested number of events', () => {
    expect(events.length).toBeGreaterThan(30_000 * 0.8);
    expect(events.length).toBeLessThan(30_000 * 1.2);
  });

  it('writes the funnel steps of a session as a prefix, in non-decreasing time', () => {
    const broken: string[] = [];
    for (const [id, list] of bySession()) {
      const steps = list
        .filter((e) => (FUNNEL_STEPS as readonly string[]).includes(e.event_name))
        .sort(
          (a, b) =>
            Number(a.ts) - Number(b.ts) ||
            FUNNEL_STEPS.indexOf(a.event_name as never) - FUNNEL_STEPS.indexOf(b.event_name as never),
        );
      if (steps.map((e) => e.event_name).join() !== FUNNEL_STEPS.slice(0, steps.length).join())
        broken.push(id);
    }
    expect(broken).toEqual([]);
  });

  it('gives each user one variant per experiment and the experiment definitions', async () => {
    const seen = new Map<string, Set<string>>();
    for (const e of events.filter((e) => e.event_name === '$exposure')) {
      const k = `${e.experiment_key}/${e.user_id}`;
      seen.set(k, (seen.get(k) ?? new Set()).add(e.variant));
    }
    expect([...seen.values()].every((v) => v.size === 1)).toBe(true);
    const defs = await core.ch.query<{ experiment_key: string; variants: string[] }>(
      `SELECT experiment_key, variants FROM experiments FINAL WHERE project_id = 'prj_t' ORDER BY experiment_key`,
    );
    expect(defs).toEqual(
      DEMO_EXPERIMENTS.map((e) => ({ experiment_key: e.experiment_key, variants: e.variants })).sort((a, b) =>
        a.experiment_key.localeCompare(b.experiment_key),
      ),
    );
  });

  it('lifts purchases for new_cta only, and converts better on iOS than on the web', () => {
    const cta = purchaseRate(variantIn('checkout_cta_v2'));
    expect(cta.get('new_cta')! / cta.get('control')!).toBeGreaterThan(1.1);
    const banner = purchaseRate(variantIn('home_banner_copy'));
    for (const v of ['playful', 'urgent']) {
      expect(banner.get(v)! / banner.get('control')!).toBeGreaterThan(0.8);
      expect(banner.get(v)! / banner.get('control')!).toBeLessThan(1.25);
    }
    const platform = purchaseRate((list) => list[0]!.platform);
    expect(platform.get('ios')!).toBeGreaterThan(platform.get('web')! * 1.3);
  });
});

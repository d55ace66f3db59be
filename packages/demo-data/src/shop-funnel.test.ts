import { CHECKOUT_EXPERIMENT, LAUNCH_EXPERIMENT } from './experiments';
import { DEMO_EXPERIMENTS, FUNNEL_STEPS, generateDemoProject } from './index';

// The shop funnel and the experiments, checked from the generated events alone: per session the
// steps come in order, conversion differs as intended by platform, campaign and weekday, and only
// checkout_cta_v2 moves purchases. The seed is fixed, so the rates below are exact, not sampled.

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const project = generateDemoProject({ seed: 7, size: 4, now: NOW, days: 28 });

const bySession = new Map<string, typeof project.events>();
for (const e of project.events) {
  if (!e.session_id) continue;
  const list = bySession.get(e.session_id) ?? [];
  list.push(e);
  bySession.set(e.session_id, list);
}
const sessionOf = new Map(project.sessions.map((s) => [s.session_id, s]));
const purchased = (sessionId: string) =>
  (bySession.get(sessionId) ?? []).some((e) => e.event_name === 'purchase');

/** Sessions grouped by `key`: [sessions, sessions with a purchase]. */
function purchaseCounts(key: (sessionId: string) => string | null): Map<string, [number, number]> {
  const counts = new Map<string, [number, number]>();
  for (const id of bySession.keys()) {
    const k = key(id);
    if (k === null) continue;
    const c = counts.get(k) ?? [0, 0];
    c[0] += 1;
    if (purchased(id)) c[1] += 1;
    counts.set(k, c);
  }
  return counts;
}

/** The share of each group's sessions with a purchase. */
function purchaseRate(key: (sessionId: string) => string | null): Map<string, number> {
  return new Map([...purchaseCounts(key)].map(([k, [n, p]]) => [k, p / n]));
}

/** Pooled two-proportion z of b's purchase rate against a's. */
function z([n1, x1]: [number, number], [n2, x2]: [number, number]): number {
  const pooled = (x1 + x2) / (n1 + n2);
  return (x2 / n2 - x1 / n1) / Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
}

const variantOf = new Map<string, Map<string, Set<string>>>();
for (const e of project.events.filter((e) => e.event_name === '$exposure')) {
  const key = String(e.properties!.experiment_key);
  const users = variantOf.get(key) ?? new Map<string, Set<string>>();
  users.set(e.user_id, (users.get(e.user_id) ?? new Set()).add(String(e.properties!.variant)));
  variantOf.set(key, users);
}
const variant = (key: string) => (sessionId: string) =>
  [...(variantOf.get(key)!.get(sessionOf.get(sessionId)!.user_id) ?? [])][0] ?? null;
const reached = (step: string) => (sessionId: string) =>
  (bySession.get(sessionId) ?? []).some((e) => e.event_name === step);

describe('demo shop funnel', () => {
  it('reaches each step only after the previous one, in non-decreasing time, inside its session', () => {
    const broken: string[] = [];
    for (const [id, events] of bySession) {
      const steps = events.filter((e) => (FUNNEL_STEPS as readonly string[]).includes(e.event_name));
      const names = steps.map((e) => e.event_name);
      // app_open first, then a prefix of the remaining steps, each once.
      if (names.join() !== FUNNEL_STEPS.slice(0, names.length).join()) broken.push(id);
      const times = steps.map((e) => Date.parse(e.timestamp));
      if (times.some((t, i) => i > 0 && t < times[i - 1]!)) broken.push(id);
    }
    expect(broken).toEqual([]);
    const total = (name: string) => project.events.filter((e) => e.event_name === name).length;
    const counts = FUNNEL_STEPS.map(total);
    for (let i = 1; i < counts.length; i++) expect(counts[i]!).toBeLessThan(counts[i - 1]!);
    expect(counts[4]!).toBeGreaterThan(100);
  });

  it('converts better on iOS than on the web, and by campaign as configured', () => {
    const byPlatform = purchaseRate((id) => sessionOf.get(id)!.platform);
    expect(byPlatform.get('ios')!).toBeGreaterThan(byPlatform.get('web')! * 1.3);
    const campaignOf = new Map(
      project.events
        .filter((e) => e.event_name === 'first_open')
        .map((e) => [e.user_id, String(e.properties!.utm_campaign ?? 'organic')]),
    );
    const byCampaign = purchaseRate((id) => campaignOf.get(sessionOf.get(id)!.user_id) ?? null);
    expect(byCampaign.get('retargeting_q2')!).toBeGreaterThan(byCampaign.get('creator_launch')! * 1.5);
  });

  it('converts better on weekends (weekly seasonality)', () => {
    const weekend = purchaseRate((id) => {
      const day = new Date(sessionOf.get(id)!.started_at).getUTCDay();
      return day === 0 || day === 6 ? 'weekend' : 'weekday';
    });
    expect(weekend.get('weekend')!).toBeGreaterThan(weekend.get('weekday')! * 1.2);
  });
});

describe('demo experiments', () => {
  it('defines two experiments whose baseline is one of their variants, goal purchase', () => {
    expect(project.experiments).toEqual(DEMO_EXPERIMENTS);
    for (const e of project.experiments) {
      expect(e.variants).toContain(e.baseline);
      expect(e.goal_event).toBe('purchase');
    }
  });

  it("exposes the banner at a user's first app open and the checkout button at each checkout, one sticky variant per user", () => {
    const firstStart = new Map<string, number>();
    for (const s of project.sessions) {
      const t = Date.parse(s.started_at);
      if (t < (firstStart.get(s.user_id) ?? Number.POSITIVE_INFINITY)) firstStart.set(s.user_id, t);
    }
    const wrong = [...bySession].filter(([id, events]) => {
      const session = sessionOf.get(id)!;
      const exposures = (key: string) =>
        events.filter((e) => e.event_name === '$exposure' && e.properties!.experiment_key === key);
      const banner = exposures(LAUNCH_EXPERIMENT.experiment_key).map((e) => Date.parse(e.timestamp));
      const first = Date.parse(session.started_at) === firstStart.get(session.user_id);
      if (banner.join() !== (first ? [Date.parse(session.started_at)] : []).join()) return true;
      const button = exposures(CHECKOUT_EXPERIMENT.experiment_key).map((e) => e.timestamp);
      const checkouts = events.filter((e) => e.event_name === 'checkout').map((e) => e.timestamp);
      return button.join() !== checkouts.join();
    });
    expect(wrong).toEqual([]);
    for (const experiment of DEMO_EXPERIMENTS) {
      const users = variantOf.get(experiment.experiment_key)!;
      for (const variants of users.values()) expect(variants.size).toBe(1);
      const split = new Map<string, number>();
      for (const [v] of users.values()) split.set(v!, (split.get(v!) ?? 0) + 1);
      expect([...split.keys()].sort()).toEqual([...experiment.variants].sort());
      for (const n of split.values())
        expect(n).toBeGreaterThan(users.size / experiment.variants.length / 1.3);
    }
  });

  it('checkout_cta_v2 lifts purchases significantly; home_banner_copy shows no significant difference', () => {
    // Among the sessions that reached checkout (where the button shows).
    const cta = purchaseCounts((id) => (reached('checkout')(id) ? variant('checkout_cta_v2')(id) : null));
    expect(z(cta.get('control')!, cta.get('new_cta')!)).toBeGreaterThan(3);
    const banner = purchaseCounts(variant('home_banner_copy'));
    for (const v of ['playful', 'urgent'])
      expect(Math.abs(z(banner.get('control')!, banner.get(v)!))).toBeLessThan(1.96);
  });
});

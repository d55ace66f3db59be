import type { BenchCore } from '../core-harness';
import type { Summary } from '../stats';
import { loadShopEvents } from './shop-events';

// The product analytics tools on a largest and a typical project, side by side.

export const ANALYTICS_TARGETS = { typical: 250, largest: 500 } as const;

export interface AnalyticsRow {
  name: string;
  result: Summary | string;
  target: number;
}

const CASES: [string, string, unknown][] = [
  [
    'analytics.funnel 4 steps, 14 days',
    'analytics.funnel',
    { steps: ['app_open', 'view_item', 'add_to_cart', 'checkout'], days: 14 },
  ],
  ['analytics.retention', 'analytics.retention', {}],
  ['analytics.cohorts', 'analytics.cohorts', {}],
  ['analytics.dimensions', 'analytics.dimensions', {}],
  ['experiment.results checkout_cta_v2', 'experiment.results', { experiment_key: 'checkout_cta_v2' }],
];

/** Loads `largest` and largest / 20 events, then measures every case on both projects. */
export async function benchAnalytics(core: BenchCore, largest: number, runs: number) {
  const typical = Math.max(1, Math.round(largest / 20));
  const projects = [
    { label: 'largest', id: 'prj_shop_largest', events: largest, target: ANALYTICS_TARGETS.largest },
    { label: 'typical', id: 'prj_shop_typical', events: typical, target: ANALYTICS_TARGETS.typical },
  ];
  const notes: string[] = [];
  for (const p of projects) {
    const t0 = performance.now();
    await loadShopEvents(core.ch, p.id, p.events, core.now);
    const seconds = (performance.now() - t0) / 1000;
    const [row] = await core.ch.query<{ n: string; users: string }>(
      'SELECT count() AS n, uniqExact(user_id) AS users FROM events WHERE project_id = {p:String}',
      { p: p.id },
    );
    notes.push(
      `analytics ${p.label}: ${Number(row?.n).toLocaleString()} events of ${Number(row?.users).toLocaleString()} users ` +
        `loaded in ${seconds.toFixed(1)} s (in-engine SQL with the demo generator's distributions; ` +
        `its JS iterator makes ~40k events/s, too slow for 10M)`,
    );
  }
  const rows: AnalyticsRow[] = [];
  for (const [name, tool, input] of CASES)
    for (const p of projects)
      rows.push({
        name: `${name} (${p.label}, ${p.events.toLocaleString()} events)`,
        result: await core.measure(p.id, tool, input, runs),
        target: p.target,
      });
  return { rows, notes };
}

import type { Attribution } from './events';
import { assignVariant, CHECKOUT_EXPERIMENT, LAUNCH_EXPERIMENT, purchaseEffect } from './experiments';
import type { Random } from './random';
import type { DemoBatch, DemoEvent, Platform } from './records';
import type { SessionSummary } from './session-story';

// The shop funnel app_open -> view_item -> add_to_cart -> checkout -> purchase (app_open is
// written by events.ts for every session). Each step is reached with a probability that depends
// on the platform, on the campaign the user came from, on the UTC weekday (weekends convert
// better) and, for the purchase step, on the checkout_cta_v2 variant. An experiment's `$exposure`
// is logged where its variant shows: the home banner test at a user's first app open (the welcome
// banner new users see), the checkout button test in each session that reaches checkout. So the
// checkout test counts only users who saw the button, and its effect is not diluted by the many
// who never reached checkout.

export const FUNNEL_STEPS = ['app_open', 'view_item', 'add_to_cart', 'checkout', 'purchase'] as const;

/** P(next step | previous step) for view_item, add_to_cart, checkout, purchase. */
export const STEP_RATES: Record<Platform, readonly [number, number, number, number]> = {
  ios: [0.62, 0.4, 0.62, 0.55],
  android: [0.55, 0.34, 0.55, 0.48],
  web: [0.45, 0.28, 0.48, 0.42],
};

/** Multiplier of every step after view_item by utm_campaign (organic users: 1). */
export const CAMPAIGN_INTENT: Record<string, number> = {
  summer_sale: 1.1,
  june_digest: 1.2,
  retargeting_q2: 1.3,
  // Curious viewers of a creator's video, few of them shoppers.
  creator_launch: 0.6,
  spring_review: 1.05,
};

/** Multiplier of view_item and purchase by UTC weekday (0 = Sunday). */
export const WEEKDAY_FACTOR = [1.3, 0.9, 0.9, 0.95, 1.0, 1.1, 1.35] as const;

const PRODUCTS = 100;

export function writeShopFunnel(
  random: Random,
  sessions: SessionSummary[],
  attribution: Attribution,
  out: DemoBatch,
): void {
  const intent = attribution === null ? 1 : (CAMPAIGN_INTENT[attribution.utm_campaign] ?? 1);
  const first = sessions.reduce<SessionSummary | undefined>(
    (a, b) => (a === undefined || b.startMs < a.startMs ? b : a),
    undefined,
  );
  for (const summary of sessions) {
    const { session, user } = summary;
    const event = (atMs: number, event_name: string, properties: NonNullable<DemoEvent['properties']>) => {
      out.events.push({
        timestamp: new Date(atMs).toISOString(),
        event_name,
        user_id: user.user_id,
        session_id: session.session_id,
        platform: session.platform,
        app_version: session.app_version,
        properties: attribution ? { ...properties, ...attribution } : properties,
      });
    };
    const expose = (atMs: number, experiment: typeof LAUNCH_EXPERIMENT) => {
      const variant = assignVariant(experiment, user.user_id);
      event(atMs, '$exposure', { experiment_key: experiment.experiment_key, variant });
    };
    if (summary === first) expose(summary.startMs, LAUNCH_EXPERIMENT);
    const weekday = WEEKDAY_FACTOR[new Date(summary.startMs).getUTCDay()]!;
    const [view, cart, checkout, purchase] = STEP_RATES[session.platform];
    const rates = [
      Math.min(0.95, view * weekday),
      Math.min(0.95, cart * intent),
      Math.min(0.95, checkout * intent),
      Math.min(0.95, purchase * intent * weekday * purchaseEffect(user.user_id)),
    ];
    let reached = 0;
    while (reached < rates.length && random.chance(rates[reached]!)) reached++;
    if (reached === 0) continue;
    // Steps at sorted instants inside the session (non-decreasing, after app_open at its start).
    const span = Math.max(0, summary.lastMs - summary.startMs);
    const times = Array.from(
      { length: reached },
      () => summary.startMs + Math.floor(random.next() * span),
    ).sort((a, b) => a - b);
    const product_id = `sku_${1000 + random.int(0, PRODUCTS - 1)}`;
    const price = random.int(5, 250) - 0.01;
    const quantity = random.weighted([
      [1, 6],
      [2, 2],
      [3, 1],
    ] as const);
    const steps: [string, DemoEvent['properties']][] = [
      ['view_item', { screen: 'ProductDetail', product_id }],
      ['add_to_cart', { screen: 'ProductDetail', product_id, price, currency: 'EUR' }],
      ['checkout', { screen: 'Checkout', items: quantity, currency: 'EUR' }],
      [
        'purchase',
        {
          screen: 'Checkout',
          order_id: `ord_${random.hex(10)}`,
          revenue: Math.round(price * quantity * 100) / 100,
          currency: 'EUR',
        },
      ],
    ];
    for (const [i, at] of times.entries()) {
      const [name, properties] = steps[i]!;
      if (name === 'checkout') expose(at, CHECKOUT_EXPERIMENT);
      event(at, name, properties!);
    }
  }
}

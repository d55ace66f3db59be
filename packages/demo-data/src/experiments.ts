import { deriveSeed } from './random';
import type { DemoExperiment } from './records';

// The demo's two A/B tests (sent as `experiments` ingest records) and who sees which variant.
// checkout_cta_v2 really works: its `new_cta` variant multiplies the checkout -> purchase step by
// PURCHASE_LIFT. home_banner_copy changes nothing, so its results must show no real difference.

export const DEMO_EXPERIMENTS: readonly DemoExperiment[] = [
  {
    experiment_key: 'checkout_cta_v2',
    goal_event: 'purchase',
    variants: ['control', 'new_cta'],
    baseline: 'control',
  },
  {
    experiment_key: 'home_banner_copy',
    goal_event: 'purchase',
    variants: ['control', 'playful', 'urgent'],
    baseline: 'control',
  },
];

/** The test of the button on the checkout screen: exposed in each session that reaches checkout. */
export const CHECKOUT_EXPERIMENT = DEMO_EXPERIMENTS[0]!;
/** The test of the welcome banner on the home screen: exposed at a user's first app open. */
export const LAUNCH_EXPERIMENT = DEMO_EXPERIMENTS[1]!;

/** Relative effect of checkout_cta_v2's `new_cta` on the checkout -> purchase step. */
export const PURCHASE_LIFT = 1.6;

function stringHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Sticky assignment: the same user always gets the same variant, evenly split (a hash, not a draw). */
export function assignVariant(experiment: DemoExperiment, userId: string): string {
  const bucket = deriveSeed(stringHash(userId), stringHash(experiment.experiment_key));
  return experiment.variants[bucket % experiment.variants.length]!;
}

/** Multiplier of the purchase step for a user, from the experiments they are in. */
export function purchaseEffect(userId: string): number {
  return assignVariant(CHECKOUT_EXPERIMENT, userId) === 'new_cta' ? PURCHASE_LIFT : 1;
}

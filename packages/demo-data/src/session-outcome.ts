import { CART_FIX_RELEASE } from './crash-issues';
import { type CrashScene, crashChance } from './crashes';
import type { Random } from './random';
import type { DemoSession } from './records';

export type Outcome = DemoSession['status'];

/** Share of sessions that freeze long enough for an ANR: Android's main thread, mostly. */
const ANR_RATE = { android: 0.02, other: 0.003 } as const;
/** Share of sessions that end without a goodbye (killed in the background, battery, OOM). */
const ABNORMAL_RATE = 0.015;

/**
 * How a session ends, one draw for every session of the demo (the storied users' and the crowd's):
 * it crashes with the summed rates of the issues that can happen in it (crash-issues.ts), freezes
 * (ANR) at the platform's rate, except in the cart fix release, which also moved image decoding off
 * the main thread, vanishes now and then, and otherwise ends normally.
 */
export function drawOutcome(random: Random, scene: CrashScene): Outcome {
  const crashed = crashChance(scene);
  const anr =
    scene.appVersion === CART_FIX_RELEASE
      ? 0
      : scene.platform === 'android'
        ? ANR_RATE.android
        : ANR_RATE.other;
  const r = random.next();
  if (r < crashed) return 'crashed';
  if (r < crashed + anr) return 'anr';
  if (r < crashed + anr + ABNORMAL_RATE) return 'abnormal';
  return 'ok';
}

import { RELEASE_WEIGHTS } from '@svc/tools-apm';
import { reported } from '../precision';

// The release health score (docs/semantics.md): each component clamped to [0, 1], 100 x their
// weighted mean, a missing component's weight shared out over the present ones.

export interface ReleaseInputs {
  crashFreeRate: number | null;
  anrRate: number | null;
  startupP95Ms: number | null;
  fpsAvg: number | null;
}

export type Components = Record<keyof typeof RELEASE_WEIGHTS, number | null>;
export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

const clamp = (x: number) => Math.min(1, Math.max(0, x));
const scored = (x: number | null, f: (v: number) => number) => (x === null ? null : reported(clamp(f(x))));

export function componentsOf(inputs: ReleaseInputs): Components {
  return {
    crash_free: scored(inputs.crashFreeRate, (cfr) => (cfr - 0.9) / 0.095),
    anr: scored(inputs.anrRate, (anr) => 1 - anr / 0.02),
    startup: scored(inputs.startupP95Ms, (p95) => (4000 - p95) / 3000),
    fps: scored(inputs.fpsAvg, (fps) => (fps - 30) / 28),
  };
}

/** 100 x the weighted mean of the present components; null when none is present. */
export function scoreOf(components: Components): number | null {
  let weight = 0;
  let sum = 0;
  for (const key of Object.keys(RELEASE_WEIGHTS) as (keyof Components)[]) {
    const value = components[key];
    if (value === null) continue;
    weight += RELEASE_WEIGHTS[key];
    sum += RELEASE_WEIGHTS[key] * value;
  }
  return weight === 0 ? null : reported((100 * sum) / weight);
}

/** Graded on the score as reported, so a score shown as 90 is an A. */
export function gradeOf(score: number | null): Grade | null {
  if (score === null) return null;
  if (score >= 90) return 'A';
  if (score >= 80) return 'B';
  if (score >= 70) return 'C';
  if (score >= 60) return 'D';
  return 'F';
}

import type { Comparison, Grade } from '../grammar/grammar';

export const COMPARISON_WORDS: Record<Comparison, string> = {
  above: 'above',
  below: 'below',
  at_least: 'at least',
  at_most: 'at most',
};

/** Whether `observed` stands in `comparison` to `threshold`; equal is neither above nor below. */
export function holds(observed: number, comparison: Comparison, threshold: number): boolean {
  switch (comparison) {
    case 'above':
      return observed > threshold;
    case 'below':
      return observed < threshold;
    case 'at_least':
      return observed >= threshold;
    case 'at_most':
      return observed <= threshold;
  }
}

const GRADE_ORDER: readonly Grade[] = ['F', 'D', 'C', 'B', 'A'];

/** Grades compared as their order F < D < C < B < A ("at least B" holds for A and B). */
export function gradeHolds(observed: Grade, comparison: 'at_least' | 'at_most', threshold: Grade): boolean {
  return holds(GRADE_ORDER.indexOf(observed), comparison, GRADE_ORDER.indexOf(threshold));
}

/**
 * Dotted versions compared part by part, numerically where both parts are numbers ('2.4.1' <
 * '2.10.0'), else as text; a missing part is 0.
 */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '0';
    const y = pb[i] ?? '0';
    const d = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** A rate as a percentage with up to two decimals: 0.98765 -> "98.77%". */
export const pct = (rate: number) => `${Math.round(rate * 10_000) / 100}%`;

/** A number with at most two decimals, for sentences. */
export const num = (n: number) => `${Math.round(n * 100) / 100}`;

/** "1 event", "3 events". */
export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

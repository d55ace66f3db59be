import { UserInputError } from '@svc/errors';
import { FIELD_LIMITS, sanitizeText } from '@svc/tool-kit';
import { experimentResults, KNOWN_KEYS } from '@svc/tools-analytics';
import { serve } from '../core-tool';
import { reported, reportedOrNull } from '../precision';
import { lastDays, utcDates } from '../sql/window';
import {
  countExposures,
  type ExposureCell,
  hasAnyExposure,
  knownExperimentKeys,
  loadDefinition,
} from './experiment-counts';
import { ALPHA, type Group, lift, msprtPValue, twoProportionZTest, type ZTest } from './statistics';

// experiment.results (docs/semantics.md). Counts come from SQL (experiment-counts.ts); the tests
// and the always-valid p-value from statistics.ts.
//
// Documented choices (docs/semantics.md):
// - found is false only when the key has neither a definition row nor any `$exposure` ever.
// - Exposures but no definition row: found true, goal_event null, per variant only `exposed`;
//   converted, rate, lift and both tests are null (the goal is unknown, nothing is guessed).
// - Variants listed: the definition's plus any seen in the window's exposures; baseline first.
// - A `baseline` parameter that is not one of those variants is 400.

/** Baseline: parameter, else the definition's, else `control`, else the first variant by name. */
export function chooseBaseline(variants: readonly string[], param?: string, defined?: string): string | null {
  if (param !== undefined) return param;
  // A stored definition's baseline outside its variants (ingest refuses one) is not the caller's
  // fault: it is passed over, not a 400.
  if (defined && variants.includes(defined)) return defined;
  if (variants.includes('control')) return 'control';
  return [...variants].sort()[0] ?? null;
}

/** A variant's users and conversions up to and including UTC date `day` ('9999-12-31': all). */
function groupUpTo(cells: readonly ExposureCell[], variant: string, day: string): Group {
  let n = 0;
  let x = 0;
  for (const c of cells) {
    if (c.variant !== variant || c.exposure_day > day) continue;
    n += c.users;
    if (c.conversion_day !== '' && c.conversion_day <= day) x += c.users;
  }
  return { n, x };
}

function reportedZTest(t: ZTest | null): ZTest | null {
  if (t === null) return null;
  return {
    z: reported(t.z),
    p_value: reported(t.p_value),
    ci_low: reported(t.ci_low),
    ci_high: reported(t.ci_high),
    significant: t.significant,
  };
}

export const experimentResultsQuery = serve(experimentResults, async (ctx, input) => {
  const w = lastDays(ctx.now, input.days);
  const { fromMs, toMs } = w;
  const definition = await loadDefinition(ctx, input.experiment_key);
  const goal = definition?.goal_event ?? null;
  const cells = await countExposures(ctx, {
    key: input.experiment_key,
    goal,
    variants: definition?.variants ?? [],
    fromMs,
    toMs,
  });
  const found = definition !== null || cells.length > 0 || (await hasAnyExposure(ctx, input.experiment_key));
  const base = {
    experiment_key: sanitizeText(input.experiment_key, FIELD_LIMITS.id),
    found,
    window: w.iso,
  };
  if (!found) {
    const known = await knownExperimentKeys(ctx, KNOWN_KEYS);
    return {
      ...base,
      goal_event: null,
      baseline: null,
      variants: [],
      known_keys: known.map((key) => sanitizeText(key, FIELD_LIMITS.id)),
    };
  }

  const names = [...new Set([...(definition?.variants ?? []), ...cells.map((c) => c.variant)])];
  const baseline = chooseBaseline(names, input.baseline, definition?.baseline);
  if (baseline !== null && !names.includes(baseline))
    throw new UserInputError(`baseline must be one of the experiment's variants: ${names.sort().join(', ')}`);
  const ordered = names.filter((v) => v !== baseline).sort();
  if (baseline !== null) ordered.unshift(baseline);

  const ALL = '9999-12-31';
  const looks = utcDates(fromMs, toMs);
  // With no baseline there are no variants either, so baseName is never read empty.
  const baseName = baseline ?? '';
  const b = groupUpTo(cells, baseName, ALL);

  const variants = ordered.map((name) => {
    const g = groupUpTo(cells, name, ALL);
    const isBaseline = name === baseline;
    const out = { variant: sanitizeText(name, FIELD_LIMITS.id), is_baseline: isBaseline, exposed: g.n };
    if (goal === null)
      return { ...out, converted: null, rate: null, lift: null, z_test: null, sequential: null };
    const rate = g.n === 0 ? null : reported(g.x / g.n);
    if (isBaseline) return { ...out, converted: g.x, rate, lift: null, z_test: null, sequential: null };
    const p = msprtPValue(
      looks.map((day) => ({
        baseline: groupUpTo(cells, baseName, day),
        variant: groupUpTo(cells, name, day),
      })),
    );
    return {
      ...out,
      converted: g.x,
      rate,
      lift: reportedOrNull(lift(b, g)),
      z_test: reportedZTest(twoProportionZTest(b, g)),
      sequential: { p_value: reported(p), significant: p < ALPHA },
    };
  });
  return {
    ...base,
    goal_event: goal === null ? null : sanitizeText(goal, FIELD_LIMITS.id),
    baseline: baseline === null ? null : sanitizeText(baseline, FIELD_LIMITS.id),
    variants,
  };
});

import { normalCdf } from '../tools/analytics/statistics';

// Test support: experiment.results written plainly and independently of the tool (loops over the
// raw ingest records, no SQL), straight from docs/semantics.md and the documented choices in
// experiment-results.ts. Only Phi comes from statistics.ts (tested there on published values).

export interface RefEvent {
  timestamp: string;
  event_name: string;
  user_id: string;
  properties?: Record<string, unknown>;
}
export interface RefDefinition {
  experiment_key: string;
  goal_event: string;
  variants: string[];
  baseline?: string;
}

const DAY = 86_400_000;

export function referenceResults(
  events: readonly RefEvent[],
  definitions: readonly RefDefinition[],
  key: string,
  days: number,
  now: number,
  baselineParam?: string,
) {
  const from = now - days * DAY;
  const window = { from: new Date(from).toISOString(), to: new Date(now).toISOString() };
  const def = definitions.filter((d) => d.experiment_key === key).at(-1);
  const isExposure = (e: RefEvent) =>
    e.event_name === '$exposure' &&
    e.properties?.experiment_key === key &&
    typeof e.properties?.variant === 'string' &&
    e.properties.variant !== '';

  // First exposure per user inside the window (equal times: the smaller variant name).
  const first = new Map<string, { t: number; variant: string }>();
  for (const e of events) {
    const t = Date.parse(e.timestamp);
    if (!isExposure(e) || t < from || t > now) continue;
    const variant = e.properties!.variant as string;
    const seen = first.get(e.user_id);
    if (!seen || t < seen.t || (t === seen.t && variant < seen.variant)) first.set(e.user_id, { t, variant });
  }
  const everExposed = events.some(isExposure);
  if (!def && first.size === 0 && !everExposed)
    return { experiment_key: key, found: false, window, goal_event: null, baseline: null, variants: [] };

  // First goal event at or after the first exposure, inside the window.
  const converted = new Map<string, number>();
  if (def) {
    for (const e of events) {
      const t = Date.parse(e.timestamp);
      const exp = first.get(e.user_id);
      if (e.event_name !== def.goal_event || !exp || t < from || t > now || t < exp.t) continue;
      const prev = converted.get(e.user_id);
      if (prev === undefined || t < prev) converted.set(e.user_id, t);
    }
  }

  const names: string[] = [...(def?.variants ?? [])];
  for (const { variant } of first.values()) if (!names.includes(variant)) names.push(variant);
  let baseline: string | null = null;
  if (baselineParam !== undefined) baseline = baselineParam;
  else if (def?.baseline) baseline = def.baseline;
  else if (names.includes('control')) baseline = 'control';
  else if (names.length > 0) baseline = [...names].sort()[0]!;
  if (baseline !== null && !names.includes(baseline)) return 'invalid baseline' as const;

  /** Users and conversions of a variant counted up to time `upTo`. */
  function counts(variant: string, upTo: number) {
    let n = 0;
    let x = 0;
    for (const [user, exp] of first) {
      if (exp.variant !== variant || exp.t > upTo) continue;
      n++;
      const c = converted.get(user);
      if (c !== undefined && c <= upTo) x++;
    }
    return { n, x };
  }

  const ordered = [...names].filter((v) => v !== baseline).sort();
  if (baseline !== null) ordered.unshift(baseline);
  const b = counts(baseline ?? '', now);
  const variants = ordered.map((variant) => {
    const g = counts(variant, now);
    const row = { variant, is_baseline: variant === baseline, exposed: g.n };
    if (!def) return { ...row, converted: null, rate: null, lift: null, z_test: null, sequential: null };
    const rate = g.n === 0 ? null : g.x / g.n;
    if (variant === baseline)
      return { ...row, converted: g.x, rate, lift: null, z_test: null, sequential: null };
    const pb = b.x / b.n;
    const pv = g.x / g.n;
    const liftValue = b.n === 0 || g.n === 0 || b.x === 0 ? null : (pv - pb) / pb;
    let zTest = null;
    const pooled = (b.x + g.x) / (b.n + g.n);
    const se = Math.sqrt(pooled * (1 - pooled) * (1 / b.n + 1 / g.n));
    if (b.n > 0 && g.n > 0 && se > 0) {
      const z = (pv - pb) / se;
      const p = 2 * (1 - normalCdf(Math.abs(z)));
      const half = 1.959963984540054 * Math.sqrt((pb * (1 - pb)) / b.n + (pv * (1 - pv)) / g.n);
      zTest = { z, p_value: p, ci_low: pv - pb - half, ci_high: pv - pb + half, significant: p < 0.05 };
    }
    // mSPRT: cumulative counts at the end of each UTC day from the window's first day to today.
    let p = 1;
    for (let dayStart = Math.floor(from / DAY) * DAY; dayStart <= now; dayStart += DAY) {
      const cb = counts(baseline ?? '', dayStart + DAY - 1);
      const cv = counts(variant, dayStart + DAY - 1);
      if (cb.n === 0 || cv.n === 0) continue;
      const qb = cb.x / cb.n;
      const qv = cv.x / cv.n;
      const V = (qb * (1 - qb)) / cb.n + (qv * (1 - qv)) / cv.n;
      if (V === 0) continue;
      const tau2 = 1e-4;
      const theta = qv - qb;
      const lambda = Math.sqrt(V / (V + tau2)) * Math.exp((theta * theta * tau2) / (2 * V * (V + tau2)));
      p = Math.min(p, 1 / lambda);
    }
    return {
      ...row,
      converted: g.x,
      rate,
      lift: liftValue,
      z_test: zTest,
      sequential: { p_value: p, significant: p < 0.05 },
    };
  });
  return {
    experiment_key: key,
    found: true,
    window,
    goal_event: def?.goal_event ?? null,
    baseline,
    variants,
  };
}

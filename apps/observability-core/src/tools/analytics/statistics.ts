// The statistics of experiment.results (docs/semantics.md): the normal distribution, the
// fixed-sample pooled two-proportion z test with an unpooled 95% CI, and the always-valid mSPRT.
// Plain functions of counts, so the unit tests can check them against published examples.

/** Standard normal density. */
function density(x: number): number {
  return Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
}

/**
 * Upper tail Q(x) = 1 - Phi(x) for x >= 0, to about 1e-15 relative. Below 2: Marsaglia's Taylor
 * series Phi(x) = 1/2 + phi(x) * (x + x^3/3 + x^5/(3*5) + ...) (G. Marsaglia, "Evaluating the
 * Normal Distribution", J. Stat. Software 11(4), 2004). From 2 up: Laplace's continued fraction
 * Q(x) = phi(x) / (x + 1/(x + 2/(x + 3/(x + ...)))), evaluated backwards from 300 terms, which
 * keeps full relative precision far into the tail where 1 - Phi(x) would cancel to 0.
 */
function upperTail(x: number): number {
  if (x < 2) {
    let term = x;
    let sum = x;
    for (let n = 1; n < 200 && Math.abs(term) > Math.abs(sum) * 1e-17; n++) {
      term *= (x * x) / (2 * n + 1);
      sum += term;
    }
    return 0.5 - density(x) * sum;
  }
  let fraction = x;
  for (let k = 300; k >= 1; k--) fraction = x + k / fraction;
  return density(x) / fraction;
}

/** Standard normal CDF Phi(x). */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  return x >= 0 ? 1 - upperTail(x) : upperTail(-x);
}

/** Two-sided p-value of a standard normal statistic: 2 * (1 - Phi(|z|)). */
export function twoSidedP(z: number): number {
  return Math.min(1, 2 * upperTail(Math.abs(z)));
}

/** Phi^-1(0.975): the 95% two-sided normal quantile. */
export const Z_975 = 1.959963984540054;
export const ALPHA = 0.05;
/** Mixing variance of the mSPRT's normal prior on the difference of rates (docs/semantics.md). */
export const MSPRT_TAU2 = 1e-4;

/** A group of an experiment: n exposed users, x of them converted. */
export interface Group {
  n: number;
  x: number;
}

export interface ZTest {
  z: number;
  p_value: number;
  /** 95% CI of p_variant - p_baseline with the unpooled standard error. */
  ci_low: number;
  ci_high: number;
  significant: boolean;
}

/**
 * Pooled two-proportion z test of variant against baseline (difference p_v - p_b). Null when it is
 * undefined: a group without users, or a pooled standard error of 0 (both rates 0 or both 1).
 */
export function twoProportionZTest(baseline: Group, variant: Group): ZTest | null {
  if (baseline.n === 0 || variant.n === 0) return null;
  const pb = baseline.x / baseline.n;
  const pv = variant.x / variant.n;
  const pooled = (baseline.x + variant.x) / (baseline.n + variant.n);
  const pooledSe = Math.sqrt(pooled * (1 - pooled) * (1 / baseline.n + 1 / variant.n));
  if (pooledSe === 0) return null;
  const z = (pv - pb) / pooledSe;
  const unpooledSe = Math.sqrt((pb * (1 - pb)) / baseline.n + (pv * (1 - pv)) / variant.n);
  const p = twoSidedP(z);
  return {
    z,
    p_value: p,
    ci_low: pv - pb - Z_975 * unpooledSe,
    ci_high: pv - pb + Z_975 * unpooledSe,
    significant: p < ALPHA,
  };
}

/** Relative lift (p_v - p_b) / p_b; null when the baseline has no users or a rate of 0. */
export function lift(baseline: Group, variant: Group): number | null {
  if (baseline.n === 0 || variant.n === 0 || baseline.x === 0) return null;
  const pb = baseline.x / baseline.n;
  return (variant.x / variant.n - pb) / pb;
}

/**
 * The mSPRT likelihood ratio with a normal mixture N(0, tau^2) on theta = p_v - p_b:
 * Lambda = sqrt(V/(V+tau^2)) * exp(theta^2 tau^2 / (2 V (V+tau^2))),
 * V = p_b(1-p_b)/n_b + p_v(1-p_v)/n_v. Returned as ln(Lambda) (the exponent can be large);
 * null when undefined (a group without users, or V = 0).
 */
export function msprtLogLambda(baseline: Group, variant: Group, tau2 = MSPRT_TAU2): number | null {
  if (baseline.n === 0 || variant.n === 0) return null;
  const pb = baseline.x / baseline.n;
  const pv = variant.x / variant.n;
  const v = (pb * (1 - pb)) / baseline.n + (pv * (1 - pv)) / variant.n;
  if (v === 0) return null;
  const theta = pv - pb;
  return 0.5 * Math.log(v / (v + tau2)) + (theta * theta * tau2) / (2 * v * (v + tau2));
}

/**
 * Always-valid p-value after a sequence of looks (cumulative counts at the end of each UTC day):
 * p_0 = 1, p_d = min(p_{d-1}, 1/Lambda_d). A look where Lambda is undefined leaves p unchanged.
 */
export function msprtPValue(
  looks: readonly { baseline: Group; variant: Group }[],
  tau2 = MSPRT_TAU2,
): number {
  let p = 1;
  for (const look of looks) {
    const logLambda = msprtLogLambda(look.baseline, look.variant, tau2);
    if (logLambda !== null) p = Math.min(p, Math.exp(-logLambda));
  }
  return p;
}

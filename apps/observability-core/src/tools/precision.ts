// Rates, shares, lifts and test statistics are computed in binary floating point, where 0.4 can
// come out as 0.40000000000000013. They are reported to 13 significant digits: a relative change
// below 5e-13, far under any statistical meaning, and the noise is gone (docs/semantics.md).
// Significance is decided on the unrounded values, so rounding never flips a verdict.

export const REPORTED_SIGNIFICANT_DIGITS = 13;

export function reported(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  return Number(x.toPrecision(REPORTED_SIGNIFICANT_DIGITS));
}

export function reportedOrNull(x: number | null): number | null {
  return x === null ? null : reported(x);
}

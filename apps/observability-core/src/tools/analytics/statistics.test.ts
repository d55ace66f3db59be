import fc from 'fast-check';
import {
  lift,
  MSPRT_TAU2,
  msprtLogLambda,
  msprtPValue,
  normalCdf,
  twoProportionZTest,
  twoSidedP,
  Z_975,
} from './statistics';

// Worked examples with their sources. Published values are rounded in the source, so each is
// compared to the precision printed there; the tables' values to full precision.

describe('normalCdf', () => {
  // Abramowitz & Stegun, Handbook of Mathematical Functions (1964), Table 26.1 (P(x), 15 decimals)
  // and 26.2 (tail Q(x) for large x); the same digits as 0.5 * erfc(x / sqrt 2) in C's libm.
  it.each([
    [0, 0.5],
    [1, 0.841344746068543],
    [1.96, 0.97500210485178],
    [2, 0.977249868051821],
    [3, 0.99865010196837],
    [-1, 0.158655253931457],
  ])('Phi(%p) = %p', (x, expected) => {
    expect(normalCdf(x)).toBeCloseTo(expected, 14);
  });

  it('keeps relative precision far in the tail (Q(5) = 2.866515718791939e-7, Q(8) = 6.22096057427178e-16)', () => {
    expect(normalCdf(-5) / 2.866515718791939e-7).toBeCloseTo(1, 12);
    expect(normalCdf(-8) / 6.22096057427178e-16).toBeCloseTo(1, 12);
    expect(twoSidedP(10) / (2 * 7.619853024160527e-24)).toBeCloseTo(1, 12);
  });

  it('is continuous where the series hands over to the continued fraction, and symmetric', () => {
    expect(normalCdf(2 - 1e-12)).toBeCloseTo(normalCdf(2), 12);
    for (const x of [0.3, 1.5, 2.5, 4]) expect(normalCdf(x) + normalCdf(-x)).toBeCloseTo(1, 15);
    expect(normalCdf(Z_975)).toBeCloseTo(0.975, 15);
    expect(twoSidedP(0)).toBe(1);
  });
});

describe('twoProportionZTest', () => {
  it('reproduces HyperStat (D. M. Lane), "Tests of Differences between Proportions": 73/85 vs 43/82', () => {
    // davidmlane.com/hyperstat/B73479.html: intervention 73 of 85 graduated, control 43 of 82;
    // pooled p = 0.695, z = 0.344 / 0.0713 = 4.69, two-tailed p < 0.0001.
    const t = twoProportionZTest({ n: 82, x: 43 }, { n: 85, x: 73 })!;
    expect(t.z).toBeCloseTo(4.69, 2);
    expect(t.p_value).toBeLessThan(0.0001);
    expect(t.significant).toBe(true);
    // Hand-checked: diff 0.344 +- 1.96 * sqrt(.8588*.1412/85 + .5244*.4756/82) = 0.344 +- 0.131.
    expect(t.ci_low).toBeCloseTo(0.2034, 4);
    expect(t.ci_high).toBeCloseTo(0.4654, 4);
  });

  it('reproduces a textbook exercise: x1 = 28 of 254 vs x2 = 36 of 301, z = -0.344, p = 0.7307', () => {
    // "Test whether P1 = P2 given x1 = 28, n1 = 254, x2 = 36, n2 = 301 at alpha = 0.05" (a standard
    // exercise; homeworksource.com/p/997366): z = -0.344, two-tailed p = 0.7307, not significant.
    const t = twoProportionZTest({ n: 301, x: 36 }, { n: 254, x: 28 })!;
    expect(t.z).toBeCloseTo(-0.344, 3);
    expect(t.p_value).toBeCloseTo(0.7307, 4);
    expect(t.significant).toBe(false);
    expect(t.ci_low).toBeLessThan(0);
    expect(t.ci_high).toBeGreaterThan(0);
  });

  it('is antisymmetric and undefined without users or without variance', () => {
    const a = twoProportionZTest({ n: 100, x: 10 }, { n: 120, x: 20 })!;
    const b = twoProportionZTest({ n: 120, x: 20 }, { n: 100, x: 10 })!;
    expect(b.z).toBeCloseTo(-a.z, 12);
    expect(b.p_value).toBeCloseTo(a.p_value, 12);
    expect(b.ci_low).toBeCloseTo(-a.ci_high, 12);
    expect(twoProportionZTest({ n: 0, x: 0 }, { n: 10, x: 1 })).toBeNull();
    expect(twoProportionZTest({ n: 10, x: 0 }, { n: 10, x: 0 })).toBeNull();
    expect(twoProportionZTest({ n: 10, x: 10 }, { n: 5, x: 5 })).toBeNull();
    // A variant with zero conversions against a converting baseline is defined.
    const zero = twoProportionZTest({ n: 50, x: 10 }, { n: 40, x: 0 })!;
    expect(zero.z).toBeLessThan(0);
    expect(zero.ci_high).toBeLessThan(0);
  });

  it('lift is relative to the baseline rate, null when that rate is 0', () => {
    expect(lift({ n: 100, x: 10 }, { n: 50, x: 6 })).toBeCloseTo(0.2, 12);
    expect(lift({ n: 100, x: 0 }, { n: 50, x: 6 })).toBeNull();
    expect(lift({ n: 100, x: 10 }, { n: 50, x: 0 })).toBeCloseTo(-1, 12);
  });
});

describe('mSPRT (normal mixture, tau^2 = 1e-4; Johari, Pekelis & Walsh, "Always Valid Inference", 2017)', () => {
  it('matches a hand computation: 100/1000 vs 130/1000', () => {
    // V = .1*.9/1000 + .13*.87/1000 = 2.031e-4; theta = .03;
    // Lambda = sqrt(2.031e-4/3.031e-4) * exp(.0009 * 1e-4 / (2 * 2.031e-4 * 3.031e-4))
    //        = 0.818582 * exp(0.730999) = 0.818582 * 2.077137 = 1.700320.
    expect(MSPRT_TAU2).toBe(1e-4);
    expect(Math.exp(msprtLogLambda({ n: 1000, x: 100 }, { n: 1000, x: 130 })!)).toBeCloseTo(1.70032, 5);
    expect(msprtPValue([{ baseline: { n: 1000, x: 100 }, variant: { n: 1000, x: 130 } }])).toBeCloseTo(
      1 / 1.70032,
      5,
    );
    // More conservative than the fixed-sample test at a single look (z test p = 0.0355 here).
    expect(twoProportionZTest({ n: 1000, x: 100 }, { n: 1000, x: 130 })!.p_value).toBeCloseTo(0.0355, 4);
  });

  it('takes the running minimum over looks and skips undefined looks', () => {
    const looks = [
      { baseline: { n: 0, x: 0 }, variant: { n: 3, x: 1 } }, // undefined: no baseline users
      { baseline: { n: 500, x: 40 }, variant: { n: 500, x: 60 } }, // Lambda = 1.438924
      { baseline: { n: 1000, x: 100 }, variant: { n: 1000, x: 130 } }, // Lambda = 1.700320
      { baseline: { n: 1500, x: 160 }, variant: { n: 1500, x: 160 } }, // theta 0: Lambda < 1
    ];
    expect(msprtPValue(looks.slice(0, 1))).toBe(1);
    expect(msprtPValue(looks.slice(0, 2))).toBeCloseTo(1 / 1.438924, 5);
    expect(msprtPValue(looks)).toBeCloseTo(1 / 1.70032, 5);
    expect(msprtPValue([])).toBe(1);
  });

  it('limits: no effect never rejects; a fixed real effect is detected as n grows; tau -> 0 is Lambda -> 1', () => {
    for (const n of [10, 1000, 1e6]) {
      expect(msprtPValue([{ baseline: { n, x: n / 10 }, variant: { n, x: n / 10 } }])).toBe(1);
    }
    const at = (n: number) => msprtPValue([{ baseline: { n, x: 0.1 * n }, variant: { n, x: 0.12 * n } }]);
    expect(at(1000)).toBeGreaterThan(0.05);
    expect(at(100_000)).toBeLessThan(1e-10);
    expect(Math.exp(msprtLogLambda({ n: 1000, x: 100 }, { n: 1000, x: 130 }, 1e-12)!)).toBeCloseTo(1, 6);
    expect(msprtLogLambda({ n: 10, x: 0 }, { n: 10, x: 0 })).toBeNull();
  });
});

describe('properties over random counts (fast-check)', () => {
  const group = fc
    .tuple(fc.integer({ min: 1, max: 500 }), fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([n, share]) => ({ n, x: Math.round(n * share) }));

  it('z test: p in [0, 1], the CI holds the difference, significant iff |z| > 1.96, antisymmetric', () => {
    fc.assert(
      fc.property(group, group, (b, v) => {
        const t = twoProportionZTest(b, v);
        if (t === null) return b.x + v.x === 0 || b.x + v.x === b.n + v.n;
        const diff = v.x / v.n - b.x / b.n;
        const back = twoProportionZTest(v, b)!;
        return (
          t.p_value >= 0 &&
          t.p_value <= 1 &&
          t.ci_low <= diff + 1e-12 &&
          diff <= t.ci_high + 1e-12 &&
          (Math.abs(Math.abs(t.z) - Z_975) < 1e-9 || t.significant === Math.abs(t.z) > Z_975) &&
          Math.abs(back.z + t.z) < 1e-9
        );
      }),
      { numRuns: 300 },
    );
  });

  // p may underflow to exactly 0 when the evidence is overwhelming (1/Lambda below 1e-308).
  it('mSPRT: p in [0, 1] and never rises as looks are added', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(group, group), { minLength: 1, maxLength: 10 }), (pairs) => {
        const looks = pairs.map(([baseline, variant]) => ({ baseline, variant }));
        let previous = 1;
        for (let i = 1; i <= looks.length; i++) {
          const p = msprtPValue(looks.slice(0, i));
          if (!(p >= 0 && p <= previous)) return false;
          previous = p;
        }
        return true;
      }),
      { numRuns: 100 },
    );
  });

  it('Phi is monotone (to 1e-15)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -40, max: 40, noNaN: true }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        (x, d) => normalCdf(x) <= normalCdf(x + d) + 1e-15, // 1e-16 seam where the series meets the fraction
      ),
      { numRuns: 300 },
    );
  });
});

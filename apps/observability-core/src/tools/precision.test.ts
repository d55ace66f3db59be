import { reported, reportedOrNull } from './precision';

describe('reported numbers', () => {
  it('drops binary floating-point noise', () => {
    expect(reported(0.40000000000000013)).toBe(0.4);
    expect(reported(0.1 + 0.2)).toBe(0.3);
    expect(reported((0.56 - 0.4) / 0.4)).toBe(0.4);
    expect(reportedOrNull(null)).toBeNull();
  });

  it('changes no value by more than 5e-13 relative, and keeps 0, signs and extremes', () => {
    for (const x of [1 / 3, -2 / 7, 123456.789012345, 1e-300, 5e-324, Math.PI * 1e12, -0.9999999999999]) {
      expect(Math.abs(reported(x) - x)).toBeLessThanOrEqual(Math.abs(x) * 5e-13);
    }
    expect(reported(0)).toBe(0);
    expect(reported(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
  });
});

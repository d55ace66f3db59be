import { compareVersions, gradeHolds, holds } from './compare';

describe('comparisons', () => {
  it('above and below are strict, at least and at most are not', () => {
    expect([
      holds(5, 'above', 5),
      holds(5, 'at_least', 5),
      holds(5, 'below', 5),
      holds(5, 'at_most', 5),
    ]).toEqual([false, true, false, true]);
  });

  it('grades order F < D < C < B < A', () => {
    expect(gradeHolds('A', 'at_least', 'B')).toBe(true);
    expect(gradeHolds('C', 'at_least', 'B')).toBe(false);
    expect(gradeHolds('F', 'at_most', 'D')).toBe(true);
    expect(gradeHolds('B', 'at_most', 'C')).toBe(false);
  });

  it('versions compare numerically part by part; a missing part is 0', () => {
    expect(compareVersions('2.10.0', '2.4.1')).toBe(1);
    expect(compareVersions('2.4', '2.4.0')).toBe(0);
    expect(compareVersions('2.4.1', '2.4.1')).toBe(0);
    expect(compareVersions('1.0.0', '1.0.1')).toBe(-1);
  });
});

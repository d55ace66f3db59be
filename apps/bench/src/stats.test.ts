import { percentile, summarize } from './stats';

describe('percentile', () => {
  // numpy.percentile([1, 2, 3, 4], [50, 95]) == [2.5, 3.85] (linear interpolation, numpy's default)
  it('matches numpy on a worked example', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([1, 2, 3, 4], 95)).toBeCloseTo(3.85, 10);
    expect(percentile([7], 99)).toBe(7);
  });

  it('summarizes unsorted samples', () => {
    expect(summarize([4, 1, 3, 2])).toMatchObject({ n: 4, p50: 2.5, max: 4, mean: 2.5 });
  });
});

import { MAX_TIME_RANGES, mergedRanges, withinRanges } from './time-ranges';

describe('time ranges', () => {
  it('sorts, joins overlapping ranges and keeps separate ones apart', () => {
    expect(
      mergedRanges([
        [50, 60],
        [0, 10],
        [5, 20],
        [20, 30],
        [31, 31],
      ]),
    ).toEqual([
      [0, 30],
      [31, 31],
      [50, 60],
    ]);
    expect(mergedRanges([])).toEqual([]);
  });

  it('closes the smallest gaps first, covering every range given', () => {
    // Gaps of 1, 100, 2, 50: with three ranges left, the gaps of 100 and 50 stay open.
    const ranges: [number, number][] = [
      [0, 0],
      [1, 1],
      [101, 101],
      [103, 103],
      [153, 160],
    ];
    expect(mergedRanges(ranges, 3)).toEqual([
      [0, 1],
      [101, 103],
      [153, 160],
    ]);
    const many = Array.from({ length: 1000 }, (_, i): [number, number] => [i * 10 + (i % 7), i * 10 + 5]);
    const merged = mergedRanges(many);
    expect(merged).toHaveLength(MAX_TIME_RANGES);
    for (const [from, to] of many) expect(merged.some(([a, b]) => a <= from && to <= b)).toBe(true);
  });

  it('names each bound as a parameter, and matches nothing without a range', () => {
    expect(withinRanges('start_time', [[1, 2]], 'r')).toEqual({
      where: [
        "((start_time >= fromUnixTimestamp64Milli({r_0_from:Int64}, 'UTC') AND start_time <= fromUnixTimestamp64Milli({r_0_to:Int64}, 'UTC')))",
      ],
      params: { r_0_from: 1, r_0_to: 2 },
    });
    expect(withinRanges('start_time', [])).toEqual({ where: ['0'], params: {} });
  });
});

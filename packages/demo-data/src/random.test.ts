import { createRandom, mulberry32 } from './random';

describe('mulberry32', () => {
  it('matches the reference sequence for seed 1', () => {
    // Values of bryc's original mulberry32 (the `t = a += 0x6D2B79F5` form) for seed 1.
    const next = mulberry32(1);
    expect([next(), next(), next()]).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
  });

  it('draws integers inclusive of both ends and weighted picks in proportion', () => {
    const random = createRandom(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(random.int(1, 3));
    expect([...seen].sort()).toEqual([1, 2, 3]);
    let heavy = 0;
    for (let i = 0; i < 10_000; i++)
      if (
        random.weighted([
          ['a', 9],
          ['b', 1],
        ] as const) === 'a'
      )
        heavy++;
    expect(heavy / 10_000).toBeGreaterThan(0.87);
    expect(heavy / 10_000).toBeLessThan(0.93);
    expect(random.hex(32)).toMatch(/^[0-9a-f]{32}$/);
  });
});

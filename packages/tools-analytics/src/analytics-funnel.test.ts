import { analyticsFunnel } from './analytics-funnel';

// The input contract of analytics.funnel (its documented inputs and bounds).
describe('analytics.funnel input', () => {
  const parse = (input: unknown) => analyticsFunnel.input.safeParse(input);

  it('applies the defaults: days 14, window_hours 24', () => {
    expect(analyticsFunnel.input.parse({ steps: ['a', 'b'] })).toEqual({
      steps: ['a', 'b'],
      days: 14,
      window_hours: 24,
    });
  });

  it('takes 2 to 10 steps, repeated names included, and nothing outside that', () => {
    expect(parse({ steps: ['a', 'a'] }).success).toBe(true);
    expect(parse({ steps: Array.from({ length: 10 }, (_, i) => `e${i}`) }).success).toBe(true);
    for (const steps of [[], ['a'], Array.from({ length: 11 }, (_, i) => `e${i}`), ['a', ''], 'a,b'])
      expect(parse({ steps }).success).toBe(false);
    expect(parse({}).success).toBe(false);
  });

  it('takes the five filters, none empty, and refuses unknown fields', () => {
    const filters = {
      platform: 'ios',
      app_version: '2.0.0',
      utm_source: 's',
      utm_medium: 'm',
      utm_campaign: 'c',
    };
    expect(parse({ steps: ['a', 'b'], ...filters }).success).toBe(true);
    expect(parse({ steps: ['a', 'b'], platform: '' }).success).toBe(false);
    expect(parse({ steps: ['a', 'b'], country: 'de' }).success).toBe(false);
  });

  it('refuses window_hours that are not whole hours in 1..8760, and days outside 1..365', () => {
    for (const window_hours of [0, 1.5, 8761, -1])
      expect(parse({ steps: ['a', 'b'], window_hours }).success).toBe(false);
    expect(parse({ steps: ['a', 'b'], window_hours: 8760 }).success).toBe(true);
    expect(parse({ steps: ['a', 'b'], days: 366 }).success).toBe(false);
  });
});

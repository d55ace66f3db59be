import { analyticsCohorts } from './analytics-cohorts';
import { analyticsRetention } from './analytics-retention';

// The input contract of analytics.retention and analytics.cohorts (the documented defaults,
// max_day 0..90 as documented in retention-schemas.ts).
describe('retention and cohorts inputs', () => {
  it('apply the documented defaults', () => {
    expect(analyticsRetention.input.parse({})).toEqual({ days: 30, max_day: 7 });
    expect(analyticsCohorts.input.parse({})).toEqual({ days: 30, max_day: 7, granularity: 'day' });
  });

  it('take max_day 0..90 only, as an integer', () => {
    for (const tool of [analyticsRetention, analyticsCohorts]) {
      for (const max_day of [0, 1, 90]) expect(tool.input.safeParse({ max_day }).success).toBe(true);
      for (const max_day of [-1, 91, 2.5, '7']) expect(tool.input.safeParse({ max_day }).success).toBe(false);
    }
  });

  it('take the five filters, trimmed, none of them empty, nothing else', () => {
    const filters = {
      platform: ' ios ',
      app_version: '2.0',
      utm_source: 'a',
      utm_medium: 'b',
      utm_campaign: 'c',
    };
    expect(analyticsRetention.input.parse(filters)).toMatchObject({ platform: 'ios' });
    expect(analyticsCohorts.input.safeParse(filters).success).toBe(true);
    for (const bad of [
      { platform: '' },
      { utm_campaign: '   ' },
      { event_name: 'x' },
      { granularity: 'day' },
    ])
      expect(analyticsRetention.input.safeParse(bad).success).toBe(false);
  });

  it('takes granularity day, week or month for cohorts', () => {
    for (const granularity of ['day', 'week', 'month'])
      expect(analyticsCohorts.input.safeParse({ granularity }).success).toBe(true);
    for (const granularity of ['year', 'Week', ''])
      expect(analyticsCohorts.input.safeParse({ granularity }).success).toBe(false);
  });

  it('state rate as a share or null in the output', () => {
    const out = (rate: unknown) =>
      analyticsRetention.output.safeParse({
        window: { from: '2024-01-01T00:00:00.000Z', to: '2024-01-31T00:00:00.000Z' },
        max_day: 0,
        cohort_size: 0,
        days: [{ day: 0, retained: 0, eligible: 0, rate }],
      }).success;
    expect(out(null)).toBe(true);
    expect(out(0.5)).toBe(true);
    expect(out(1.5)).toBe(false);
  });
});

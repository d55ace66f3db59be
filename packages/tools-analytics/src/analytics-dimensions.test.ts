import { analyticsDimensions, DIMENSIONS } from './analytics-dimensions';

// What analytics.dimensions takes and gives back, as docs/tools.md documents it.
describe('analytics.dimensions', () => {
  it('defaults to 30 days and takes nothing but days', () => {
    expect(analyticsDimensions.input.parse({})).toEqual({ days: 30 });
    expect(analyticsDimensions.input.safeParse({ platform: 'ios' }).success).toBe(false);
    expect(analyticsDimensions.input.safeParse({ days: 0 }).success).toBe(false);
  });

  it('reports exactly the filter dimensions of the analytics tools', () => {
    expect(DIMENSIONS).toEqual(['platform', 'app_version', 'utm_source', 'utm_medium', 'utm_campaign']);
    const empty = { values: [], has_more: false };
    const dimensions = Object.fromEntries(DIMENSIONS.map((d) => [d, empty]));
    const window = { from: '2024-01-01T00:00:00.000Z', to: '2024-01-31T00:00:00.000Z' };
    expect(analyticsDimensions.output.safeParse({ window, dimensions }).success).toBe(true);
    const { platform: _p, ...missing } = dimensions;
    expect(analyticsDimensions.output.safeParse({ window, dimensions: missing }).success).toBe(false);
  });
});

import { experimentResults } from './experiment-results';

// The input and output contract of experiment.results (its documented inputs and statistics).
describe('experiment.results contract', () => {
  it('requires experiment_key; days defaults to 14; baseline optional', () => {
    expect(experimentResults.input.safeParse({}).success).toBe(false);
    expect(experimentResults.input.safeParse({ experiment_key: ' ' }).success).toBe(false);
    const parsed = experimentResults.input.parse({ experiment_key: 'checkout_button' });
    expect(parsed).toEqual({ experiment_key: 'checkout_button', days: 14 });
    expect(experimentResults.input.parse({ experiment_key: 'x', baseline: ' a ' }).baseline).toBe('a');
    expect(experimentResults.input.safeParse({ experiment_key: 'x', baseline: '' }).success).toBe(false);
  });

  it('refuses days outside 1..365 and unknown fields', () => {
    for (const days of [0, 366, 1.5])
      expect(experimentResults.input.safeParse({ experiment_key: 'x', days }).success).toBe(false);
    expect(experimentResults.input.safeParse({ experiment_key: 'x', days: 365 }).success).toBe(true);
    expect(experimentResults.input.safeParse({ experiment_key: 'x', goal: 'buy' }).success).toBe(false);
  });

  it('states an unknown key as found false with no variants, and nullable statistics', () => {
    const window = { from: '2024-01-01T00:00:00.000Z', to: '2024-01-15T00:00:00.000Z' };
    const base = { experiment_key: 'x', window, goal_event: null, baseline: null };
    expect(experimentResults.output.safeParse({ ...base, found: false, variants: [] }).success).toBe(true);
    const row = {
      variant: 'b',
      is_baseline: false,
      exposed: 3,
      converted: 0,
      rate: 0,
      lift: null,
      z_test: null,
      sequential: { p_value: 1, significant: false },
    };
    const ok = { ...base, found: true, goal_event: 'buy', baseline: 'a', variants: [row] };
    expect(experimentResults.output.safeParse(ok).success).toBe(true);
    const bad = { ...ok, variants: [{ ...row, exposed: 1.5 }] };
    expect(experimentResults.output.safeParse(bad).success).toBe(false);
  });
});

import { feedbackSearch } from './feedback-search';
import { trackRecent } from './track-recent';
import { trackStats } from './track-stats';

// The input contract of the tracking and feedback tools (the documented defaults).
describe('tracking and feedback tool inputs', () => {
  it('applies the documented defaults', () => {
    expect(trackRecent.input.parse({}).limit).toBe(20);
    expect(feedbackSearch.input.parse({}).limit).toBe(20);
    expect(trackStats.input.parse({}).days).toBe(14);
  });

  it('takes every filter as optional and none of them empty', () => {
    expect(trackRecent.input.safeParse({ name: 'checkout', user_id: 'u', search: 'x' }).success).toBe(true);
    expect(trackRecent.input.safeParse({ name: ' ' }).success).toBe(false);
    expect(trackRecent.input.safeParse({ search: '' }).success).toBe(false);
    expect(feedbackSearch.input.safeParse({ user_id: 'u', search: 'slow' }).success).toBe(true);
    expect(feedbackSearch.input.safeParse({ user_id: '' }).success).toBe(false);
  });

  it('refuses days outside 1..365, limits outside 1..1000, unknown fields', () => {
    for (const days of [0, 366, 2.5]) expect(trackStats.input.safeParse({ days }).success).toBe(false);
    expect(trackStats.input.safeParse({ days: 365 }).success).toBe(true);
    expect(trackRecent.input.safeParse({ limit: 1001 }).success).toBe(false);
    expect(feedbackSearch.input.safeParse({ limit: 0 }).success).toBe(false);
    expect(trackRecent.input.safeParse({ event: 'x' }).success).toBe(false);
  });
});

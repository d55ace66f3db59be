import { trackRecent } from './track-recent';

// The input contract of the tracking and feedback tools (the documented defaults).
describe('tracking and feedback tool inputs', () => {
  it('states event properties as an object in its output', () => {
    const item = {
      timestamp: '2024-01-01T00:00:00.000Z',
      event_name: 'x',
      properties: { a: { b: [1, 'two'] } },
      platform: null,
      app_version: null,
      user_id: 'u',
      session_id: null,
    };
    expect(trackRecent.output.safeParse({ items: [item], limit: 20, has_more: false }).success).toBe(true);
    expect(
      trackRecent.output.safeParse({
        items: [{ ...item, properties: '{"a":1}' }],
        limit: 20,
        has_more: false,
      }).success,
    ).toBe(false);
  });
});

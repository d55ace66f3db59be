import { userDetail } from './user-detail';

// The input contract of the user and session views (the documented defaults).
describe('user and session tool inputs', () => {
  it('describes a missing id as found: false with empty channels', () => {
    const empty = { total: 0, items: [], has_more: false };
    const answer = {
      user_id: 'nobody',
      found: false,
      first_seen: null,
      last_seen: null,
      platforms: [],
      app_versions: [],
      limit: 10,
      logs: empty,
      crashes: empty,
      events: empty,
      feedback: empty,
      sessions: empty,
    };
    expect(userDetail.output.safeParse(answer).success).toBe(true);
    expect(userDetail.output.safeParse({ ...answer, sessions: undefined }).success).toBe(false);
  });
});

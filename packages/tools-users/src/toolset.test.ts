import { sessionDetail } from './session-detail';
import { userDetail } from './user-detail';

// The input contract of the user and session views (the documented defaults).
describe('user and session tool inputs', () => {
  it('applies the documented default limits (per channel)', () => {
    expect(userDetail.input.parse({ user_id: 'u' }).limit).toBe(10);
    expect(sessionDetail.input.parse({ session_id: 's' }).limit).toBe(50);
  });

  it('requires the id, trimmed and non-empty', () => {
    expect(userDetail.input.safeParse({}).success).toBe(false);
    expect(userDetail.input.safeParse({ user_id: '   ' }).success).toBe(false);
    expect(userDetail.input.parse({ user_id: ' u1 ' }).user_id).toBe('u1');
    expect(sessionDetail.input.safeParse({}).success).toBe(false);
    expect(sessionDetail.input.safeParse({ session_id: 'x'.repeat(201) }).success).toBe(false);
  });

  it('refuses limits outside 1..1000 and unknown fields', () => {
    for (const tool of [userDetail, sessionDetail]) {
      const id = tool === userDetail ? { user_id: 'u' } : { session_id: 's' };
      expect(tool.input.safeParse({ ...id, limit: 0 }).success).toBe(false);
      expect(tool.input.safeParse({ ...id, limit: 1001 }).success).toBe(false);
      expect(tool.input.safeParse({ ...id, limit: 1000 }).success).toBe(true);
      expect(tool.input.safeParse({ ...id, days: 3 }).success).toBe(false);
    }
  });
});

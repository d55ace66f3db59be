import { verifyRunSession } from './verify-run-session';

describe('verify.run_session', () => {
  it('exactly one of trace_id or trace_ids, an expectation', () => {
    const id = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(verifyRunSession.input.safeParse({ trace_id: id, expectation: 'no error span' }).success).toBe(
      true,
    );
    for (const bad of [
      { expectation: 'no error span' },
      { trace_id: id, trace_ids: [id], expectation: 'x' },
      { trace_id: id },
      { trace_ids: [], expectation: 'x' },
    ]) {
      expect(verifyRunSession.input.safeParse(bad).success).toBe(false);
    }
  });
});

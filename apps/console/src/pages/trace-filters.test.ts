import { nextLimit, TRACE_LIMIT_MAX, TRACE_PAGE_SIZE, traceSearchRequest, utcTime } from './trace-filters';

describe('traceSearchRequest', () => {
  it('sends only the fields filled in, under the tool names, numbers as numbers', () => {
    const query = {
      project: 'p1',
      user_id: 'u-1',
      session_id: '',
      status: 'error',
      operation: '  ',
      min_duration_ms: '12.5',
      limit: '100',
    };
    expect(traceSearchRequest(query)).toEqual({
      ok: true,
      values: { user_id: 'u-1', status: 'error', min_duration_ms: '12.5', limit: '100' },
      input: { user_id: 'u-1', status: 'error', min_duration_ms: 12.5, limit: 100 },
    });
  });

  it('sends nothing for an empty form: the tool keeps its defaults', () => {
    expect(traceSearchRequest({ project: 'p1' })).toEqual({ ok: true, values: {}, input: {} });
  });

  it('leaves every other check to the gateway (one validation, at the boundary)', () => {
    const request = traceSearchRequest({ status: 'sometimes', min_duration_ms: '-1' });
    expect(request).toMatchObject({ ok: true, input: { status: 'sometimes', min_duration_ms: -1 } });
  });

  it('refuses a duration that is no number, and keeps every value for the form', () => {
    expect(traceSearchRequest({ min_duration_ms: 'slow', user_id: 'u-1' })).toEqual({
      ok: false,
      values: { min_duration_ms: 'slow', user_id: 'u-1' },
      problem: 'The minimum duration is a number of milliseconds.',
    });
  });

  it('sends the time window as UTC times and the maximum duration as a number', () => {
    const request = traceSearchRequest({
      from: '2026-11-20T10:00',
      to: '2026-11-20T18:30:15',
      max_duration_ms: '900',
    });
    expect(request).toEqual({
      ok: true,
      values: { from: '2026-11-20T10:00', to: '2026-11-20T18:30:15', max_duration_ms: '900' },
      input: { from: '2026-11-20T10:00:00Z', to: '2026-11-20T18:30:15Z', max_duration_ms: 900 },
    });
  });

  it('refuses a time that is no datetime-local value, naming which bound', () => {
    expect(traceSearchRequest({ to: 'tomorrow' })).toMatchObject({
      ok: false,
      problem: expect.stringContaining('end of the window'),
    });
    expect(utcTime('2026-13-40T10:00')).toBeUndefined();
    expect(utcTime('2026-11-20T10:00:05.250')).toBe('2026-11-20T10:00:05.250Z');
  });

  it('ignores a repeated parameter rather than picking one of its values', () => {
    expect(traceSearchRequest({ status: ['error', 'ok'] })).toEqual({ ok: true, values: {}, input: {} });
  });
});

describe('nextLimit', () => {
  it('asks for one more page, up to the tool maximum', () => {
    expect(nextLimit(TRACE_PAGE_SIZE)).toBe(2 * TRACE_PAGE_SIZE);
    expect(nextLimit(TRACE_LIMIT_MAX - 1)).toBe(TRACE_LIMIT_MAX);
    expect(nextLimit(TRACE_LIMIT_MAX)).toBeUndefined();
  });
});

import { verifyRun, verifyRunSession } from '@svc/tools-verify';
import { CLAIM_FORMS, EXPECTATION_FORMS, parseClaim, parseExpectations } from './grammar';

describe('claim grammar', () => {
  it.each([
    [
      'Crash 9F2C3A1B4D5E6F70 did not recur after version 2.4.1.',
      {
        kind: 'crash_recurrence',
        signature: '9f2c3a1b4d5e6f70',
        recurred: false,
        since: { version: '2.4.1' },
      },
    ],
    [
      'crash 9f2c3a1b4d5e6f70 recurred since 2026-11-01',
      {
        kind: 'crash_recurrence',
        signature: '9f2c3a1b4d5e6f70',
        recurred: true,
        since: { date: '2026-11-01' },
      },
    ],
    [
      'p99 of operation "POST /api/v1/checkout" is below 2000 ms over 3 days',
      {
        kind: 'operation_latency',
        operation: 'POST /api/v1/checkout',
        percentile: 'p99',
        comparison: 'below',
        ms: 2000,
        days: 3,
      },
    ],
    [
      'P50 latency of operation fraud.score is at least 1000ms',
      {
        kind: 'operation_latency',
        operation: 'fraud.score',
        percentile: 'p50',
        comparison: 'at_least',
        ms: 1000,
        days: 14,
      },
    ],
    [
      "error rate of operation 'GET /api/v1/feed' is under 5% over the last 7 days",
      {
        kind: 'operation_error_rate',
        operation: 'GET /api/v1/feed',
        comparison: 'below',
        rate: 0.05,
        days: 7,
      },
    ],
    [
      'p95 of metric app_start_ms is above 3000 ms',
      {
        kind: 'metric_percentile',
        metric: 'app_start_ms',
        percentile: 'p95',
        comparison: 'above',
        value: 3000,
        days: 14,
      },
    ],
    [
      'release 2.4.1 crash-free session rate is at least 99.5%',
      { kind: 'release_crash_free', version: '2.4.1', comparison: 'at_least', rate: 0.995, days: 14 },
    ],
    [
      'release 2.5.0 grade is at most c',
      { kind: 'release_grade', version: '2.5.0', comparison: 'at_most', grade: 'C', days: 14 },
    ],
    [
      'conversion from view_item to add_to_cart is greater than 30% over 14 days',
      {
        kind: 'funnel_conversion',
        from: 'view_item',
        to: 'add_to_cart',
        comparison: 'above',
        rate: 0.3,
        days: 14,
      },
    ],
    [
      'user user_00004_4f78 crashed in session sess_768b1d50a44aa524',
      {
        kind: 'user_crashed',
        user_id: 'user_00004_4f78',
        session_id: 'sess_768b1d50a44aa524',
        crashed: true,
      },
    ],
    ['User u1 did not crash', { kind: 'user_crashed', user_id: 'u1', session_id: null, crashed: false }],
  ])('reads %p', (text, claim) => {
    expect(parseClaim(text)).toEqual(claim);
  });

  it.each([
    'checkout is fast',
    'crash 123 did not recur after version 2.4.1',
    'p95 of operation x is below 10 ms',
    'release 2.5.0 grade is above B',
    'p99 of operation POST /x is below 10 ms',
    '',
  ])('does not guess at %p', (text) => {
    expect(parseClaim(text)).toBeUndefined();
  });

  it('lists a form for every claim kind', () => {
    expect(CLAIM_FORMS).toHaveLength(8);
  });
});

describe('expectation grammar', () => {
  it('reads several expectations joined by ; or and', () => {
    expect(
      parseExpectations('no span over 500 ms; no error spans and calls service risk before "payments"'),
    ).toEqual({
      expectations: [
        { kind: 'no_span_over', ms: 500 },
        { kind: 'no_error_span' },
        { kind: 'calls_before', first: 'risk', later: 'payments' },
      ],
      unparsed: [],
    });
  });

  it('returns what it cannot read instead of dropping it', () => {
    expect(parseExpectations('no error span; the checkout feels snappy')).toEqual({
      expectations: [{ kind: 'no_error_span' }],
      unparsed: ['the checkout feels snappy'],
    });
    expect(EXPECTATION_FORMS).toHaveLength(3);
  });
});

// The definitions (@svc/tools-verify) tell clients which forms this grammar reads.
describe('tool definitions', () => {
  it('fit the description cap and name every claim form the grammar reads', () => {
    expect(verifyRun.description.length).toBeLessThanOrEqual(600);
    expect(verifyRunSession.description.length).toBeLessThanOrEqual(600);
    for (const lead of [
      'crash <signature>',
      'of operation',
      'error rate',
      'of metric',
      'crash-free rate',
      'grade',
      'conversion from',
      'user <id>',
    ]) {
      expect(verifyRun.description).toContain(lead);
    }
    for (const form of EXPECTATION_FORMS) expect(verifyRunSession.description).toContain(form);
  });
});

import { formatTraceparent, parseTraceparent } from './traceparent';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('reads version 00: trace id, parent span id, the sampled flag', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      sampled: true,
    });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      sampled: false,
    });
    // Only bit 0 means sampled; other flag bits are kept out of the decision.
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-03`)?.sampled).toBe(true);
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-02`)?.sampled).toBe(false);
    expect(parseTraceparent(`  00-${TRACE}-${SPAN}-01 `)?.traceId).toBe(TRACE);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['uppercase hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['long span id', `00-${TRACE}-${SPAN}0-01`],
    ['one-digit flags', `00-${TRACE}-${SPAN}-1`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with more fields', `00-${TRACE}-${SPAN}-01-extra`],
    ['not hex', `00-${TRACE.slice(0, 31)}g-${SPAN}-01`],
    ['several headers', [`00-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01`]],
  ])('treats %s as absent (a new root trace starts)', (_case, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });

  it('reads the known fields of a later version, and ignores what it appends', () => {
    expect(parseTraceparent(`cc-${TRACE}-${SPAN}-01-what-the-future-holds`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      sampled: true,
    });
  });

  it('writes version 00, the format it reads', () => {
    const context = { traceId: TRACE, spanId: SPAN, sampled: false };
    expect(formatTraceparent(context)).toBe(`00-${TRACE}-${SPAN}-00`);
    expect(parseTraceparent(formatTraceparent({ ...context, sampled: true }))).toEqual({
      ...context,
      sampled: true,
    });
  });
});

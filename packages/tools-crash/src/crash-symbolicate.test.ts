import { crashSymbolicate } from './crash-symbolicate';

// The input contract of symbol.list and crash.symbolicate, as docs/tools.md gives it.
describe('symbol tool inputs', () => {
  it('crash.symbolicate: event_id is required and non-blank', () => {
    expect(crashSymbolicate.input.parse({ event_id: ' ev_1 ' })).toEqual({ event_id: 'ev_1' });
    expect(crashSymbolicate.input.safeParse({}).success).toBe(false);
    expect(crashSymbolicate.input.safeParse({ event_id: '  ' }).success).toBe(false);
  });

  it('crash.symbolicate answers only {event_id, accepted}: no state names', () => {
    expect(crashSymbolicate.output.safeParse({ event_id: 'e', accepted: true }).success).toBe(true);
    expect(
      crashSymbolicate.output.safeParse({ event_id: 'e', accepted: true, status: 'pending' }).success,
    ).toBe(false);
  });
});

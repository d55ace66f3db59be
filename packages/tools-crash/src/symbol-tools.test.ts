import { crashSymbolicate } from './crash-symbolicate';
import { symbolList } from './symbol-list';

// The input contract of symbol.list and crash.symbolicate, as docs/tools.md gives it.
describe('symbol tool inputs', () => {
  it('symbol.list: platform is optional and only ios, android or web', () => {
    expect(symbolList.input.parse({})).toEqual({});
    for (const platform of ['ios', 'android', 'web'])
      expect(symbolList.input.parse({ platform })).toEqual({ platform });
    for (const platform of ['IOS', 'linux', ''])
      expect(symbolList.input.safeParse({ platform }).success).toBe(false);
    expect(symbolList.input.safeParse({ limit: 10 }).success).toBe(false);
  });

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

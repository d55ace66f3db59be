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
});

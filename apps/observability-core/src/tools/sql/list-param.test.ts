import { renderQueryParams } from '@svc/clickhouse';
import { inParts, LIST_PARAM_BYTES, listElementBytes, listParts } from './list-param';

describe('list parameters in parts', () => {
  it('counts at least the bytes an element takes in the rendered SQL text', () => {
    for (const value of ['abc', "it's", 'back\\slash', 'tab\there\u0000', 'é', '€', '😀', 'a'.repeat(300)]) {
      const one = renderQueryParams('{v:Array(String)}', { v: [value] });
      const two = renderQueryParams('{v:Array(String)}', { v: [value, value] });
      // Two elements minus one: the element and its separator, without the CAST around the list.
      expect(listElementBytes(value)).toBeGreaterThanOrEqual(Buffer.byteLength(two) - Buffer.byteLength(one));
    }
  });

  it('keeps the order, stays within every budget, and puts an item over one in a part of its own', () => {
    const items = [3, 1, 9, 2, 2, 5, 20, 1];
    const parts = inParts(items, [
      { of: (n) => n, max: 10 },
      { of: () => 1, max: 3 },
    ]);
    expect(parts.flat()).toEqual(items);
    expect(parts).toEqual([[3, 1], [9], [2, 2, 5], [20], [1]]);
    expect(inParts([], [{ of: () => 1, max: 1 }])).toEqual([]);
  });

  it('splits a list of ids whose text would pass the budget', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `${i}`.padStart(250, 'x'));
    const parts = listParts(ids);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.flat()).toEqual(ids);
    for (const part of parts) {
      expect(Buffer.byteLength(renderQueryParams('{v:Array(String)}', { v: part }))).toBeLessThanOrEqual(
        LIST_PARAM_BYTES + 64,
      );
    }
  });
});

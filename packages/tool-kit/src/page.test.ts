import { fetchFor, pageOf } from './page';

describe('pageOf', () => {
  it('keeps `limit` rows and says whether the extra row was there', () => {
    expect(fetchFor(2)).toBe(3);
    expect(pageOf([1, 2, 3], 2)).toEqual({ items: [1, 2], limit: 2, has_more: true });
    expect(pageOf([1, 2], 2)).toEqual({ items: [1, 2], limit: 2, has_more: false });
    expect(pageOf([], 5)).toEqual({ items: [], limit: 5, has_more: false });
  });

  it('makes each kept row an item, and no other', () => {
    const seen: number[] = [];
    const page = pageOf([1, 2, 3], 2, (n) => {
      seen.push(n);
      return `#${n}`;
    });
    expect(page).toEqual({ items: ['#1', '#2'], limit: 2, has_more: true });
    expect(seen).toEqual([1, 2]);
  });
});

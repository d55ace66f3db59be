import { apmSearch } from './apm-search';

// The input contract of the performance tools (the documented defaults, docs/semantics.md ranges).
describe('apm tool inputs', () => {
  it('apm.search: limit defaults to 20 within 1..1000; name trimmed; search non-empty', () => {
    expect(apmSearch.input.parse({})).toEqual({ limit: 20 });
    expect(apmSearch.input.parse({ name: ' fps ' }).name).toBe('fps');
    for (const bad of [{ limit: 0 }, { limit: 1001 }, { search: '' }, { name: '' }, { days: 1 }]) {
      expect(apmSearch.input.safeParse(bad).success).toBe(false);
    }
  });
});

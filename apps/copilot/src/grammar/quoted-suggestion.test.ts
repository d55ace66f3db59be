import { parseClaim } from './grammar';
import { quotedSuggestion } from './quoted-suggestion';

describe('quotedSuggestion', () => {
  it.each([
    [
      'p99 of operation GET /api/v1/feed is below 300 ms',
      'p99 of operation "GET /api/v1/feed" is below 300 ms',
    ],
    [
      'error rate of operation POST /api/v1/checkout is at most 2% over 7 days',
      'error rate of operation "POST /api/v1/checkout" is at most 2% over 7 days',
    ],
    ['p95 of metric cold start ms is under 900', 'p95 of metric "cold start ms" is under 900'],
  ])('quotes the name of %j', (query, suggested) => {
    expect(parseClaim(query)).toBeUndefined();
    expect(quotedSuggestion(query)).toBe(suggested);
    expect(parseClaim(suggested)).toMatchObject({});
  });

  it.each([
    ['a claim in the grammar already', 'p99 of operation "GET /api/v1/feed" is below 300 ms'],
    ['one word, nothing to quote', 'p99 of operation checkout is about 300 ms'],
    ['no form at all', 'the app is way more stable since the new release'],
  ])('suggests nothing for %s', (_case, query) => {
    expect(quotedSuggestion(query)).toBeNull();
  });
});

import { compactText } from './compact-text';

describe('compactText', () => {
  it('writes a list of objects as a table and other fields one per line', () => {
    expect(
      compactText({
        items: [
          {
            timestamp: '2026-01-02T03:04:05Z',
            level: 'error',
            message: 'payment failed | retry',
            attrs: { a: 1 },
          },
          { timestamp: '2026-01-02T03:04:01Z', level: 'info', message: 'checkout\nopened' },
        ],
        window: { from: '2026-01-01', to: '2026-01-02' },
        limit: 50,
        has_more: false,
      }),
    ).toMatchInlineSnapshot(`
"items[2]: timestamp|level|message|attrs
2026-01-02T03:04:05Z|error|"payment failed | retry"|{"a":1}
2026-01-02T03:04:01Z|info|"checkout\\nopened"|
window: {"from":"2026-01-01","to":"2026-01-02"}
limit: 50
has_more: false"
`);
  });

  it('quotes strings that would read as numbers, booleans, null, JSON or blanks', () => {
    expect(
      compactText({
        rows: [{ v: '42' }, { v: 'true' }, { v: 'null' }, { v: '' }, { v: ' x' }, { v: '[1]' }, { v: null }],
      }),
    ).toMatchInlineSnapshot(`
"rows[7]: v
"42"
"true"
"null"
""
" x"
"[1]"
null"
`);
  });

  it('keeps empty lists, lists of values and nested lists as compact JSON', () => {
    expect(
      compactText({ items: [], tags: ['a', 'b'], nested: { spans: [{ id: 1 }] } }),
    ).toMatchInlineSnapshot(`
"items: []
tags: ["a","b"]
nested: {"spans":[{"id":1}]}"
`);
  });
});

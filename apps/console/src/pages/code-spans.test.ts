import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { CodeSpans, codeSpans } from './code-spans';

describe('code spans in tool descriptions', () => {
  it('shows paired backticks as code and everything else as text', () => {
    const text = 'Returns {items, `has_more`}; call `trace.search` first.';
    expect(renderToString(h(CodeSpans, { text }))).toBe(
      'Returns {items, <code>has_more</code>}; call <code>trace.search</code> first.',
    );
    expect(
      codeSpans(text)
        .map((p) => p.text)
        .join(''),
    ).toBe(text.replaceAll('`', ''));
  });

  it('keeps markup in a description as text, inside code spans and out', () => {
    const html = renderToString(
      h(CodeSpans, { text: '<img src=x onerror=alert(1)> and `<script>alert(2)</script>`' }),
    );
    expect(html).toBe('&lt;img src=x onerror=alert(1)> and <code>&lt;script>alert(2)&lt;/script></code>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
  });

  it('prints an unpaired backtick and an empty pair as they are', () => {
    expect(renderToString(h(CodeSpans, { text: 'a `b` c `d' }))).toBe('a <code>b</code> c `d');
    expect(renderToString(h(CodeSpans, { text: 'empty `` pair' }))).toBe('empty `` pair');
    expect(renderToString(h(CodeSpans, { text: 'no code at all' }))).toBe('no code at all');
    expect(renderToString(h(CodeSpans, { text: '' }))).toBe('');
  });
});

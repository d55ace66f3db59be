import { renderAnswer } from './markdown';

const noCitations = () => undefined;

describe('renderAnswer', () => {
  it('renders Markdown: emphasis, lists, code, tables', () => {
    const html = renderAnswer(
      '**Top crash**\n\n- one `x`\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |',
      noCitations,
    );
    expect(html).toContain('<strong>Top crash</strong>');
    expect(html).toContain('<li>one <code>x</code></li>');
    expect(html).toContain('<td>1</td>');
  });

  it.each([
    ['<script>alert(1)</script>', '&#60;script&#62;alert(1)&#60;/script&#62;'],
    ['<img src=x onerror=alert(1)>', '&#60;img src=x onerror=alert(1)&#62;'],
    ['<a href="javascript:alert(1)">x</a>', '&#60;a href=&#34;javascript:alert(1)&#34;&#62;x&#60;/a&#62;'],
  ])('shows HTML as text: %s', (input, shown) => {
    const html = renderAnswer(input, noCitations);
    expect(html).toContain(shown);
    expect(html).not.toMatch(/<(script|img|iframe)/i);
  });

  it('draws no image, keeps no script link, and shows each link with its host', () => {
    const html = renderAnswer(
      '![pixel](https://tracker.example/p.gif) [docs](https://docs.example.com/a?b=1) [bad](javascript:alert(1)) [data](data:text/html,x)',
      noCitations,
    );
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain(
      '<a href="https://docs.example.com/a?b=1" rel="noopener noreferrer nofollow" target="_blank">docs</a> <small class="link-host">(docs.example.com)</small>',
    );
    expect(html).not.toMatch(/href="(javascript|data):/i);
  });

  it('links [#N] to the call behind a claim, leaves unknown numbers as text', () => {
    const html = renderAnswer('2.5.0 brought a crash [#1], maybe [#7].', (n) =>
      n === 1 ? '/tools/crash.issues?project=p&input=%7B%7D' : undefined,
    );
    expect(html).toContain(
      '<a class="citation" href="/tools/crash.issues?project=p&#38;input=%7B%7D">[#1]</a>',
    );
    expect(html).toContain('maybe [#7].');
  });
});

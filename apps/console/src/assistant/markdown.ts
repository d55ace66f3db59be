import MarkdownIt from 'markdown-it';

// The model's answer as HTML: Markdown with HTML disabled (tags are shown as text), no images (a
// picture would load from anywhere on its own), links only to http(s) addresses, each followed by
// its host so the person sees where it goes before clicking, and opened only by a click. `[#N]`
// (the call behind a claim) becomes a link to that call in the tool runner.

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
md.disable('image');
md.validateLink = (url) => /^https?:\/\//i.test(url.trim());

type Token = ReturnType<MarkdownIt['parse']>[number];

const CITATION = /\[#(\d{1,3})\]/g;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Where the call numbered N of the turn is run again; undefined: no such call (shown as text). */
export type CitationHref = (callNumber: number) => string | undefined;

/** The answer's Markdown rendered safe to put in the page as it is. */
export function renderAnswer(markdown: string, citationHref: CitationHref): string {
  const hosts: (string | undefined)[] = [];
  const rules = {
    ...md.renderer.rules,
    link_open: (tokens: Token[], idx: number) => {
      const href = tokens[idx]!.attrGet('href') ?? '';
      const host = URL.parse(href)?.host;
      hosts.push(host);
      return `<a href="${escapeHtml(href)}" rel="noopener noreferrer nofollow" target="_blank">`;
    },
    link_close: () => {
      const host = hosts.pop();
      return host ? `</a> <small class="link-host">(${escapeHtml(host)})</small>` : '</a>';
    },
    text: (tokens: Token[], idx: number) =>
      escapeHtml(tokens[idx]!.content).replace(CITATION, (whole, n: string) => {
        const href = citationHref(Number(n));
        return href ? `<a class="citation" href="${escapeHtml(href)}">${whole}</a>` : whole;
      }),
  };
  const renderer = Object.assign(Object.create(Object.getPrototypeOf(md.renderer)), md.renderer, {
    rules,
  }) as typeof md.renderer;
  return renderer.render(md.parse(markdown, {}), md.options, {});
}

// Test-only: the headings of a markdown document and the anchors GitHub gives them.

/** The headings of a markdown text, outside fenced code blocks, without their `#` marks. */
export function headingsOf(markdown: string): string[] {
  let fenced = false;
  const headings: string[] = [];
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) {
      const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
      if (heading) headings.push(heading[1]!);
    }
  }
  return headings;
}

/** The anchors of a document's headings as GitHub renders them (a repeated heading gets -1, -2...). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headingsOf(markdown)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/**
 * Whether `name` names one of `headings`: the heading's text, any case, with or without its
 * backticks and its closing parenthesis ("Browsers" names "Browsers (CORS)").
 */
export function namesHeading(name: string, headings: readonly string[]): boolean {
  const plain = (text: string) => text.replace(/`/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
  return headings.some(
    (h) => plain(h) === plain(name) || plain(h).replace(/\s*\([^)]*\)$/, '') === plain(name),
  );
}

import ts from 'typescript';

// Test-only: the prose of a source file, as its readers read it.

/**
 * The comments of a TypeScript or JavaScript file, each run of comments that only whitespace
 * separates as one text (a sentence over several `//` lines is one), with the comment markers
 * taken out and the lines joined by single spaces. `line` is where the run starts (1-based).
 */
export function commentsOf(path: string, text: string): { line: number; text: string }[] {
  const kind = path.endsWith('x')
    ? ts.ScriptKind.TSX
    : path.endsWith('.ts')
      ? ts.ScriptKind.TS
      : ts.ScriptKind.JS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const ranges = new Map<number, ts.CommentRange>();
  const collect = (node: ts.Node) => {
    for (const range of [
      ...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.getEnd()) ?? []),
    ])
      ranges.set(range.pos, range);
    ts.forEachChild(node, collect);
  };
  collect(source);
  collect(source.endOfFileToken);

  const runs: { line: number; text: string; end: number }[] = [];
  for (const range of [...ranges.values()].sort((a, b) => a.pos - b.pos)) {
    const body = unmark(text.slice(range.pos, range.end));
    const last = runs.at(-1);
    if (last && text.slice(last.end, range.pos).trim() === '') {
      last.text = `${last.text} ${body}`;
      last.end = range.end;
    } else {
      runs.push({
        line: source.getLineAndCharacterOfPosition(range.pos).line + 1,
        text: body,
        end: range.end,
      });
    }
  }
  return runs.map(({ line, text: body }) => ({ line, text: body.replace(/\s+/g, ' ').trim() }));
}

/**
 * The `//` comments of a Go file, as commentsOf gives them: each run of comment lines one text.
 * (Go's SDK comments by line only; a `//` inside a string is rare enough there to be read too.)
 */
export function goCommentsOf(text: string): { line: number; text: string }[] {
  const runs: { line: number; text: string; next: number }[] = [];
  text.split('\n').forEach((line, index) => {
    const match = /^\s*\/\/(.*)$/.exec(line) ?? /\s\/\/\s(.*)$/.exec(line);
    if (!match) return;
    const last = runs.at(-1);
    if (last && last.next === index) {
      last.text = `${last.text} ${match[1]}`;
      last.next = index + 1;
    } else runs.push({ line: index + 1, text: match[1]!, next: index + 1 });
  });
  return runs.map(({ line, text: body }) => ({ line, text: body.replace(/\s+/g, ' ').trim() }));
}

/** The text of a `//` or `/* *\/` comment without its markers. */
function unmark(comment: string): string {
  if (comment.startsWith('//')) return comment.slice(2);
  return comment
    .slice(2, -2)
    .split('\n')
    .map((line) => line.replace(/^\s*\*(?!\/)/, ''))
    .join('\n');
}

import ts from 'typescript';
import { filesUnder, read } from './repository';

// A doc comment (`/** ... */`) is what an editor shows for the declaration right below it, so it
// sits directly above the one it describes: no blank line and no other comment between them. One
// left behind when code moved describes the wrong thing (a secret check's doc shown on a pager).
// The JSX pragma opens a file and documents nothing.

const FILES = ['apps', 'packages', 'scripts', 'deploy'].flatMap((dir) =>
  filesUnder(dir, ['.ts', '.tsx', '.mts', '.mjs']),
);

function strayDocComments(path: string): string[] {
  const text = read(path);
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const seen = new Set<number>();
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const comments = (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).filter(
      (range) => !seen.has(range.pos),
    );
    for (const range of comments) seen.add(range.pos);
    const last = comments.at(-1);
    for (const range of comments) {
      const comment = text.slice(range.pos, range.end);
      if (!comment.startsWith('/**') || comment.startsWith('/** @jsx')) continue;
      const loose = range !== last || /\n[ \t]*\n/.test(text.slice(range.end, node.getStart()));
      if (loose && node.kind !== ts.SyntaxKind.EndOfFileToken)
        found.push(`${path}:${line(range.pos)}: ${comment.slice(0, 70).replace(/\s+/g, ' ')}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

it('doc comments sit directly above what they describe', () => {
  expect(FILES.flatMap(strayDocComments)).toEqual([]);
});

import ts from 'typescript';
import { filesUnder, read } from './repository';

// A function is read whole: a body past 150 lines cannot be held in one's head, so none in shipped
// source is longer (aim far lower). Long closures are split into named parts of their own files.
// Not shipped, so not held to it: tests and their helpers (`*.test.ts`, `testing/`, `e2e/`), the
// demo data generator, migrations (one long list of statements), the benchmarks, generated files.
const MAX_BODY_LINES = 150;

const SHIPPED = ['apps', 'packages', 'scripts', 'deploy']
  .flatMap((dir) => filesUnder(dir, ['.ts', '.tsx', '.mts', '.mjs']))
  .filter(
    (path) =>
      !/\.test\.tsx?$|\/testing\/|\/e2e\/|\/generated\/|migrations/.test(path) &&
      !path.startsWith('packages/demo-data/') &&
      !path.startsWith('apps/bench/'),
  );

type FunctionLike = ts.FunctionLikeDeclaration & { body: ts.Node };

/** What a reader calls a function: its own name, the name it is bound to, or the call it is passed to. */
function nameOf(fn: FunctionLike): string {
  if (fn.name) return fn.name.getText();
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText();
  if (ts.isCallExpression(parent)) return `callback of ${parent.expression.getText().slice(0, 60)}`;
  return '<anonymous>';
}

/** Every function body in `path` longer than MAX_BODY_LINES: `file:line name: n lines`. */
function longBodies(path: string): string[] {
  const source = ts.createSourceFile(path, read(path), ts.ScriptTarget.Latest, true);
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as FunctionLike;
      const lines = line(fn.body.getEnd()) - line(fn.body.getStart()) + 1;
      if (lines > MAX_BODY_LINES) found.push(`${path}:${line(fn.getStart())} ${nameOf(fn)}: ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

it('reads the shipped source (the exclusions above leave it)', () => {
  expect(SHIPPED.length).toBeGreaterThan(500);
});

it(`has no function body over ${MAX_BODY_LINES} lines in shipped source`, () => {
  expect(SHIPPED.flatMap(longBodies)).toEqual([]);
});

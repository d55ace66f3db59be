import { commentsOf } from './comments';
import { filesUnder, read } from './repository';

// A comment keeps the rule and its why; what was measured on the way there (before and after
// figures, "measured: 3x") goes stale with the next change and belongs to docs/decisions.md, where
// it is dated and kept with its method. Shipped source only: tests, their helpers and the benchmarks
// are where measuring happens.

const SHIPPED = ['apps', 'packages', 'scripts', 'deploy']
  .flatMap((dir) => filesUnder(dir, ['.ts', '.tsx', '.mts', '.mjs']))
  .filter(
    (path) =>
      !/\.test\.tsx?$|\/testing\/|\/e2e\/|\/generated\//.test(path) &&
      !path.startsWith('packages/demo-data/') &&
      !path.startsWith('apps/bench/') &&
      !path.startsWith('packages/repo-checks/'),
  );

/** "7.1 -> 6.1 ms", "went from 4.4 to 2.8", "measured: 3x", "(measured A/B)", "was 1.3 ms". */
const HISTORY =
  /\d[\d.,]*\s*(?:ms|us|µs|s|MB|KB|GB|%|x)?\s*(?:->|→)\s*~?\d|\bwent from ~?\d|\bmeasured:|\(measured\b|\bwas ~?\d/gi;

it('shipped code comments record no measurement history', () => {
  const found = SHIPPED.flatMap((path) =>
    commentsOf(path, read(path)).flatMap((comment) =>
      [...comment.text.matchAll(HISTORY)].map(
        (m) =>
          `${path}:${comment.line}: ...${comment.text.slice(Math.max(0, m.index - 40), m.index + 40)}...`,
      ),
    ),
  );
  expect(found).toEqual([]);
});

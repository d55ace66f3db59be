import { filesUnder, read } from './repository';

// Code comments and test names are read by the same people as the docs: they say the rule they
// rely on ("errors are never sampled away"), never a document the repository does not have. Tests
// may read the shared test vectors next to the repository; production code never reaches outside it.
// The checks themselves name what they refuse.
const SOURCES = [
  ...filesUnder('apps', ['.ts', '.tsx', '.mjs']),
  ...filesUnder('packages', ['.ts', '.tsx', '.mjs']),
].filter((path) => !path.startsWith('packages/repo-checks/'));
const isTest = (path: string) => /\.test\.tsx?$|\/testing\/|\/e2e\//.test(path);

it('cites no document outside the repository', () => {
  const offenders = SOURCES.flatMap((path) =>
    (read(path).match(/\bSPEC(?:\.md)?\b|\bDESIGN(?:\.md)?\b/g) ?? []).map((hit) => `${path}: ${hit}`),
  );
  expect(offenders).toEqual([]);
});

it('reads ../shared only from tests', () => {
  const offenders = SOURCES.filter((path) => !isTest(path) && read(path).includes('../shared'));
  expect(offenders).toEqual([]);
});

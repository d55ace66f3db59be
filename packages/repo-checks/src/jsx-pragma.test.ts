import { filesUnder, read, workspacePackages } from './repository';

// Every .tsx file names its JSX runtime itself. tsx (the runtime of `pnpm start` and the spawned
// stacks) reads only the tsconfig of the directory it starts in, which at the repository root has
// no JSX settings: without the pragma a page would compile to React.createElement and fail at run time.
const PRAGMA = '/** @jsxRuntime automatic @jsxImportSource preact */';

const files = workspacePackages().flatMap((pkg) => {
  try {
    return filesUnder(`${pkg.dir}/src`, ['.tsx']);
  } catch {
    return [];
  }
});

describe('JSX files', () => {
  it('exist (the web console renders its pages with them)', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files.map((f) => [f.replace(/^.*?\/(apps|packages)\//, '$1/')] as const))(
    '%s starts with the JSX pragma',
    (file) => {
      const full = files.find((f) => f.endsWith(file))!;
      expect(read(full).split('\n')[0]).toBe(PRAGMA);
    },
  );
});

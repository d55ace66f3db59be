import { type PackedPackage, packedPackages } from './testing';

// What an app gets from every public package, read from the tarballs `pnpm pack` made (the files a
// publish would upload): built JavaScript and declarations, the docs and the licence, nothing of the
// repository (sources, tests, fixtures, testing helpers) and no version only a workspace can resolve.

const packages = Object.values(packedPackages().packages);

/** Every path an `exports` map (or main/module/types/bin) points at, and every condition object. */
function targets(value: unknown, into: { paths: string[]; conditions: Record<string, unknown>[] }) {
  if (typeof value === 'string') into.paths.push(value.replace(/^\.\//, ''));
  else if (Array.isArray(value)) for (const inner of value) targets(inner, into);
  else if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.every(([key]) => !key.startsWith('.')))
      into.conditions.push(value as Record<string, unknown>);
    for (const [, inner] of entries) targets(inner, into);
  }
  return into;
}

it('packs the public packages: the four SDKs at least', () => {
  expect(packages.map((p) => p.name)).toEqual(
    expect.arrayContaining(['@svc/sdk-core', '@svc/sdk-node', '@svc/sdk-react-native', '@svc/sdk-web']),
  );
});

describe.each(packages.map((p) => [p.name, p] as [string, PackedPackage]))('%s', (_name, pkg) => {
  it('holds dist/, README.md, CHANGELOG.md, LICENSE and package.json, nothing else', () => {
    const other = pkg.files.filter(
      (f) => !f.startsWith('dist/') && !['README.md', 'CHANGELOG.md', 'LICENSE', 'package.json'].includes(f),
    );
    expect(other).toEqual([]);
    expect(pkg.files).toEqual(
      expect.arrayContaining(['README.md', 'CHANGELOG.md', 'LICENSE', 'package.json']),
    );
  });

  it('ships no test, fixture or testing helper', () => {
    expect(pkg.files.filter((f) => /\.test\.|(^|\/)(testing|fixtures|__tests__)\//.test(f))).toEqual([]);
  });

  it('names only versions a registry resolves, a semver of its own and the MIT licence', () => {
    const text = JSON.stringify(pkg.manifest);
    expect(text).not.toMatch(/"(workspace|catalog):/);
    expect(pkg.manifest.private).toBeUndefined();
    expect(pkg.manifest.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect(pkg.manifest.license).toBe('MIT');
  });

  it('points its exports, main, module, types and bin at files it ships, types first in every condition', () => {
    const { exports, main, module, types, bin } = pkg.manifest;
    const found = targets(exports, { paths: [], conditions: [] });
    targets([main, module, types, bin], found);
    expect(found.paths.filter((p) => !pkg.files.includes(p))).toEqual([]);
    for (const condition of found.conditions)
      if ('types' in condition) expect(Object.keys(condition)[0]).toBe('types');
    expect(
      Object.keys((exports as Record<string, unknown> | undefined) ?? {}).filter((s) => /testing/.test(s)),
    ).toEqual([]);
  });
});

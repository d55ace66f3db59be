import { readFileSync } from 'node:fs';

// What the jest run's globalSetup packed (global-setup.ts), read by the install proofs.

/** The environment variable naming the JSON file globalSetup wrote (jest passes it to every test file). */
export const TARBALLS_ENV = 'SVC_TEST_TARBALLS';

export interface PackedManifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  [field: string]: unknown;
}

export interface PackedPackage {
  name: string;
  version: string;
  /** Absolute path of the .tgz. */
  tarball: string;
  /** The package.json inside the tarball (workspace: and catalog: versions rewritten by pnpm). */
  manifest: PackedManifest;
  /** Every file in the tarball, relative to the package (`package/` removed), sorted. */
  files: string[];
}

export interface PackedSet {
  /** The temporary folder holding the tarballs; removed by globalTeardown. */
  dir: string;
  packages: Record<string, PackedPackage>;
}

/** Every public package of the workspace, packed once for this jest run. */
export function packedPackages(): PackedSet {
  const file = process.env[TARBALLS_ENV];
  if (!file)
    throw new Error(
      `${TARBALLS_ENV} is not set: the tarballs are packed by sdk-e2e's jest globalSetup ` +
        '(src/installs/testing/global-setup.ts), which skips packing when the run names only test files ' +
        'without "install" in their path. Run this file through sdk-e2e\'s jest config.',
    );
  return JSON.parse(readFileSync(file, 'utf8')) as PackedSet;
}

/** One packed package; throws naming the packed ones when `name` is not among them. */
export function packed(name: string): PackedPackage {
  const set = packedPackages();
  const pkg = set.packages[name];
  if (!pkg)
    throw new Error(`${name} was not packed (public packages: ${Object.keys(set.packages).join(', ')})`);
  return pkg;
}

/**
 * `name -> file:<tarball>` for the named packages and every packed package they depend on, however
 * deep: npm would otherwise look for `@svc/sdk-core` in the registry, where it is not (yet).
 */
export function tarballDependencies(names: readonly string[]): Record<string, string> {
  const set = packedPackages();
  const out: Record<string, string> = {};
  const add = (name: string) => {
    if (out[name]) return;
    const pkg = packed(name);
    out[name] = `file:${pkg.tarball}`;
    for (const dep of Object.keys({ ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies }))
      if (set.packages[dep]) add(dep);
  };
  for (const name of names) add(name);
  return out;
}

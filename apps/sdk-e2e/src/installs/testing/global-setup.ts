import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTestBundles } from '@svc/standalone/testing';
import { publicPackages, tarballName } from './public-packages';
import { REPOSITORY_ROOT, runCommand } from './run-command';
import { type PackedManifest, type PackedPackage, type PackedSet, TARBALLS_ENV } from './tarballs';

// jest's globalSetup for sdk-e2e: packs every public workspace package ONCE per jest run (pnpm
// pack: its prepack builds dist/, and it rewrites workspace: and catalog: versions as a publish
// would) into a temporary folder, and names the list in TARBALLS_ENV for the install proofs; and
// builds the bundles their stacks start from.

/** Packs at a time: each runs a TypeScript declaration build, heavy on CPU and memory. */
const AT_ONCE = 2;

interface JestGlobalConfig {
  testPathPatterns?: { patterns?: string[] };
}

export default async function globalSetup(globalConfig: JestGlobalConfig): Promise<void> {
  // A run of named files none of which is an install proof (one SDK test while working on it) does
  // not pay for the packing; a whole run, or any install file, does.
  const named = globalConfig.testPathPatterns?.patterns ?? [];
  if (named.length > 0 && !named.some((pattern) => pattern.includes('install'))) return;
  // The install proofs' stacks start from bundles built once, as the standalone's own tests do.
  buildTestBundles();

  const dir = await mkdtemp(join(tmpdir(), 'svc-tarballs-'));
  const packages = await publicPackages(REPOSITORY_ROOT);
  const packed: Record<string, PackedPackage> = {};
  const queue = [...packages];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      await runCommand('pnpm', ['pack', '--pack-destination', dir], {
        cwd: next.dir,
        what: `pnpm pack of ${next.name}`,
      });
      const tarball = join(dir, tarballName(next.name, next.version));
      const listing = await runCommand('tar', ['tzf', tarball], { cwd: dir });
      const manifest = await runCommand('tar', ['xzOf', tarball, 'package/package.json'], { cwd: dir });
      packed[next.name] = {
        name: next.name,
        version: next.version,
        tarball,
        manifest: JSON.parse(manifest.stdout) as PackedManifest,
        files: listing.stdout
          .split('\n')
          .filter((line) => line && !line.endsWith('/'))
          .map((line) => line.replace(/^package\//, ''))
          .sort(),
      };
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));

  const file = join(dir, 'tarballs.json');
  const set: PackedSet = { dir, packages: packed };
  writeFileSync(file, JSON.stringify(set, null, 2));
  process.env[TARBALLS_ENV] = file;
}

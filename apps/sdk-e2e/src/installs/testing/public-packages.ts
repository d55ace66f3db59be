import { runCommand } from './run-command';

// The workspace packages an app installs: every one not marked private (the SDKs, the CLI).

export interface PublicPackage {
  name: string;
  version: string;
  /** The package's folder in the repository. */
  dir: string;
}

export async function publicPackages(root: string): Promise<PublicPackage[]> {
  // pnpm's own list of the workspace: the packages are the ones it would publish.
  const { stdout } = await runCommand('pnpm', ['-r', 'ls', '--json', '--depth', '-1'], { cwd: root });
  const all = JSON.parse(stdout) as { name: string; version: string; path: string; private?: boolean }[];
  return all
    .filter((p) => !p.private)
    .map((p) => ({ name: p.name, version: p.version, dir: p.path }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The file `pnpm pack` writes for a package: `@svc/sdk-node` 0.1.0 -> `svc-sdk-node-0.1.0.tgz`. */
export const tarballName = (name: string, version: string) =>
  `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRepositoryRoot } from '@svc/config';

// Test-only: the repository's files as the checks read them.

export const ROOT = findRepositoryRoot(fileURLToPath(new URL('.', import.meta.url)))!;

const SKIP = new Set(['node_modules', 'dist', '.turbo', '.git', 'coverage', 'bench-results']);

/** Files under `dir` (relative to the root) whose name ends with one of `endings`. */
export function filesUnder(dir: string, endings: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const name of readdirSync(abs)) {
      if (SKIP.has(name) || name.startsWith('.data')) continue;
      const path = join(abs, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (endings.some((e) => name.endsWith(e))) out.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

export const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The workspace packages: folder, name, declared dependencies. */
export function workspacePackages() {
  return ['apps', 'packages'].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .filter((name) => {
        try {
          statSync(join(ROOT, group, name, 'package.json'));
          return true;
        } catch {
          return false;
        }
      })
      .map((name) => {
        const dir = `${group}/${name}`;
        const pkg = JSON.parse(read(`${dir}/package.json`)) as {
          name: string;
          dependencies?: Record<string, string>;
          devDependencies?: Record<string, string>;
        };
        return { dir, name: pkg.name, deps: { ...pkg.dependencies, ...pkg.devDependencies } };
      }),
  );
}

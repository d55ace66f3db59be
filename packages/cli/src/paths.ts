import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from './usage-error';

// Finding a command's files under the paths it was given. Directories are walked in name order
// (the output and the uploads come in the same order on every run); node_modules and hidden
// directories are skipped: build output never lives there, and they can be huge.

export async function statOrUsage(path: string) {
  try {
    return await stat(path);
  } catch {
    throw new UsageError(`No such file or directory: ${path}`);
  }
}

/** Every file under `dir` for which `accept(path, name)` holds, sorted, recursively. */
export async function walkFiles(
  dir: string,
  accept: (path: string, name: string) => boolean,
): Promise<string[]> {
  const out: string[] = [];
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      out.push(...(await walkFiles(path, accept)));
    } else if (entry.isFile() && accept(path, entry.name)) {
      out.push(path);
    }
  }
  return out;
}

/** Directories under `dir` (itself included) whose name `accept`s, not looking inside a match. */
export async function walkDirs(dir: string, accept: (name: string) => boolean): Promise<string[]> {
  const name =
    dir
      .replace(/[/\\]+$/, '')
      .split(/[/\\]/)
      .pop() ?? '';
  if (accept(name)) return [dir];
  const out: string[] = [];
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    out.push(...(await walkDirs(join(dir, entry.name), accept)));
  }
  return out;
}

/** Files named directly are taken as they are; directories are searched with `accept`. */
export async function expandPaths(
  paths: readonly string[],
  accept: (path: string, name: string) => boolean,
): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    const info = await statOrUsage(path);
    if (info.isDirectory()) out.push(...(await walkFiles(path, accept)));
    else out.push(path);
  }
  return out;
}

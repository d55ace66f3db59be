import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The data directory (embedded stores, the standalone's internal secret, debug files), resolved
// the same way by every entry point: `pnpm start`, `pnpm svc`, the services and the stdio server.
// pnpm runs a script from its package's folder and a `--filter` script from another, so neither
// the process's working directory nor a path relative to it can be trusted to agree.

const DEFAULT_NAME = '.data';
/** The standalone writes its service-to-service secret here (mode 0600) on first start. */
export const INTERNAL_SECRET_FILE = 'internal-secret';

/** The nearest folder at or above `from` holding pnpm-workspace.yaml: the repository root. */
export function findRepositoryRoot(from: string): string | undefined {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

const THIS_FILE = fileURLToPath(import.meta.url);

/**
 * - `SVC_DATA_DIR` absolute: that directory.
 * - `SVC_DATA_DIR` relative: against the directory the command was typed in (`INIT_CWD`, which pnpm
 *   sets), else the working directory.
 * - unset: `.data` at the root of the repository this code runs from, whatever the working
 *   directory; outside a repository checkout (a bundle in a container), `.data` in the working
 *   directory.
 */
export function resolveDataDir(env: Record<string, string | undefined>, cwd: string): string {
  const typedIn = env.INIT_CWD?.trim() || cwd;
  const configured = env.SVC_DATA_DIR?.trim();
  if (configured) return isAbsolute(configured) ? configured : resolve(typedIn, configured);
  const root = findRepositoryRoot(dirname(THIS_FILE));
  return root ? join(root, DEFAULT_NAME) : resolve(cwd, DEFAULT_NAME);
}

/**
 * SVC_INTERNAL_SECRET, else the secret a standalone stack keeps in the data dir (so `pnpm svc` and
 * the stdio server work beside `pnpm start` with nothing to copy); undefined when neither exists.
 */
export function internalSecretOf(env: Record<string, string | undefined>, cwd: string): string | undefined {
  const fromEnv = env.SVC_INTERNAL_SECRET?.trim();
  if (fromEnv) return fromEnv;
  const file = join(resolveDataDir(env, cwd), INTERNAL_SECRET_FILE);
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

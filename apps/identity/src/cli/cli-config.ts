import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    /** 1: the operation failed; 2: the command line was wrong. */
    readonly exitCode = 1,
    readonly code = 'failed',
  ) {
    super(message);
  }
}

export interface CliConfig {
  url: string;
  secret: string;
}

/**
 * Where identity is and the internal secret. The secret comes from SVC_INTERNAL_SECRET, else from
 * the file the standalone persists, `<SVC_DATA_DIR or ./.data>/internal-secret`. A relative data dir
 * is taken from where the user ran `pnpm svc` (INIT_CWD, set by pnpm), not from this package.
 */
export async function resolveCliConfig(
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<CliConfig> {
  const url = (env.SVC_IDENTITY_INTERNAL_URL?.trim() || 'http://localhost:8081').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(url))
    throw new CliError('SVC_IDENTITY_INTERNAL_URL must be an http(s) URL', 2, 'config');
  const fromEnv = env.SVC_INTERNAL_SECRET?.trim();
  if (fromEnv) return { url, secret: fromEnv };
  const base = env.INIT_CWD?.trim() || cwd;
  const file = join(resolve(base, env.SVC_DATA_DIR?.trim() || './.data'), 'internal-secret');
  try {
    const secret = (await readFile(file, 'utf8')).trim();
    if (secret) return { url, secret };
  } catch {
    // reported below
  }
  throw new CliError(
    `no internal secret: set SVC_INTERNAL_SECRET, or start the standalone stack, which writes ${file}`,
    1,
    'config',
  );
}

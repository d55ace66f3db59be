import { join } from 'node:path';
import { INTERNAL_SECRET_FILE, internalSecretOf, resolveDataDir } from '@svc/config';

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
 * the file the standalone persists, `<data dir>/internal-secret`, the data dir resolved exactly as
 * `pnpm start` resolves it (resolveDataDir).
 */
export async function resolveCliConfig(
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<CliConfig> {
  const url = (env.SVC_IDENTITY_INTERNAL_URL?.trim() || 'http://localhost:8081').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(url))
    throw new CliError('SVC_IDENTITY_INTERNAL_URL must be an http(s) URL', 2, 'config');
  const secret = internalSecretOf(env, cwd);
  if (secret) return { url, secret };
  const file = join(resolveDataDir(env, cwd), INTERNAL_SECRET_FILE);
  throw new CliError(
    `no internal secret: set SVC_INTERNAL_SECRET, or start the standalone stack, which writes ${file}`,
    1,
    'config',
  );
}

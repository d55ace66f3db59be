import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECKPOINT_KEY_MIN_LENGTH, checkpointKeyId } from '@svc/audit';
import { ConfigError } from '@svc/config';
import type { Logger } from '@svc/tool-kit';
import { CHECKPOINT_LOG_FILE, syncDir } from './file-checkpoint-store';

/** Where a generated key is kept, beside the log, when SVC_AUDIT_CHECKPOINT_KEY is not set. */
export const CHECKPOINT_KEY_FILE = 'audit-checkpoint-key';

export interface CheckpointKey {
  key: string;
  /** Where it came from, for the start-up log line (never the key itself). */
  source: 'env' | 'file' | 'generated';
  /** checkpointKeyId(key): safe to log. */
  kid: string;
}

const problem = (message: string) => new ConfigError('identity', [message]);

/**
 * The key checkpoints are signed with; it never goes near the database. SVC_AUDIT_CHECKPOINT_KEY
 * wins (a secret manager can then keep it off this host's disk); else `<dir>/audit-checkpoint-key`,
 * generated once (32 random bytes, base64url, mode 0600), the way the standalone keeps its internal
 * secret. A missing key file beside a log that already holds checkpoints is refused: a fresh key
 * would silently make all of them unverifiable.
 */
export async function resolveCheckpointKey(
  config: { dir: string; key: string | undefined },
  logger: Logger,
): Promise<CheckpointKey> {
  if (config.key) return { key: config.key, source: 'env', kid: checkpointKeyId(config.key) };
  const path = join(config.dir, CHECKPOINT_KEY_FILE);
  let stored: string | undefined;
  try {
    stored = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (stored !== undefined) {
    if (stored.length < CHECKPOINT_KEY_MIN_LENGTH) {
      throw problem(`${path} holds a key shorter than ${CHECKPOINT_KEY_MIN_LENGTH} characters`);
    }
    const { mode } = await stat(path);
    if (mode & 0o077) {
      logger.warn(
        { event: 'audit_checkpoint_key_readable', path, mode: (mode & 0o777).toString(8) },
        'the audit checkpoint key file can be read by other users: chmod 600 it',
      );
    }
    return { key: stored, source: 'file', kid: checkpointKeyId(stored) };
  }
  const log = join(config.dir, CHECKPOINT_LOG_FILE);
  const logBytes = await stat(log).then(
    (s) => s.size,
    () => 0,
  );
  if (logBytes > 0) {
    throw problem(
      `${path} is missing but ${log} holds checkpoints signed with it: restore the key file, or set ` +
        'SVC_AUDIT_CHECKPOINT_KEY to the key they were signed with',
    );
  }
  await mkdir(config.dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64url');
  // 'wx': a second process generating at the same moment fails here instead of overwriting.
  await writeFile(path, `${key}\n`, { mode: 0o600, flag: 'wx', flush: true });
  await syncDir(config.dir);
  return { key, source: 'generated', kid: checkpointKeyId(key) };
}

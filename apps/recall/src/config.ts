import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpUrl, internalSecret, logLevel, parseEnv, portOf, resolveDataDir } from '@svc/config';
import type { PostgresOptions } from '@svc/postgres';
import { type SelfTraceConfig, selfTraceConfig, selfTraceEnv } from '@svc/self-trace';
import { z } from 'zod';
import { parseMasterKey } from './keys';

const emptyAsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const recallEnvSchema = z.object({
  SVC_RECALL_PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65535).optional()),
  SVC_RECALL_ENDPOINT: z.preprocess(emptyAsUnset, httpUrl.optional()),
  SVC_RECALL_HOST: z.string().min(1).default('0.0.0.0'),
  SVC_INTERNAL_SECRET: internalSecret,
  SVC_IDENTITY_INTERNAL_URL: z.preprocess(emptyAsUnset, httpUrl.default('http://localhost:8081')),
  SVC_RECALL_DATABASE_URL: z.preprocess(
    emptyAsUnset,
    z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
  ),
  SVC_RECALL_MASTER_KEY: z.preprocess(
    emptyAsUnset,
    z
      .string()
      .refine((v) => {
        try {
          parseMasterKey(v);
          return true;
        } catch {
          return false;
        }
      }, 'must be 32 bytes, base64-encoded (e.g. openssl rand -base64 32)')
      .optional(),
  ),
  SVC_LOG_LEVEL: logLevel,
  // The stack traced by itself: recall calls no core otherwise, so the core's address is its own variable.
  SVC_CORE_URL: z.preprocess(emptyAsUnset, httpUrl.optional()),
  ...selfTraceEnv,
});

export interface RecallConfig {
  port: number;
  host: string;
  internalSecret: string;
  identityUrl: string;
  logLevel: z.output<typeof logLevel>;
  /** Embedded PGlite under `<data dir>/recall/db` unless SVC_RECALL_DATABASE_URL names a server. */
  database: PostgresOptions;
  /** Uploaded files' bytes. */
  filesDir: string;
  masterKey: Buffer;
  /** SVC_SELF_TRACE_PROJECT (sent to SVC_CORE_URL): where recall's own spans go; undefined: not traced. */
  selfTrace: SelfTraceConfig | undefined;
}

export const MASTER_KEY_FILE = 'recall-master-key';

/**
 * The master key: SVC_RECALL_MASTER_KEY, else `<data dir>/recall/recall-master-key`, generated on
 * first start (mode 0600). Losing it loses every file: back it up with the data dir.
 */
export function masterKeyIn(dir: string, configured: string | undefined): Buffer {
  if (configured) return parseMasterKey(configured);
  const file = join(dir, MASTER_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  }
  return parseMasterKey(readFileSync(file, 'utf8'));
}

export function loadRecallConfig(env: Record<string, string | undefined>, cwd = process.cwd()): RecallConfig {
  const e = parseEnv('recall', recallEnvSchema, env);
  const dir = join(resolveDataDir(env, cwd), 'recall');
  return {
    port: e.SVC_RECALL_PORT ?? portOf(e.SVC_RECALL_ENDPOINT, 8087),
    host: e.SVC_RECALL_HOST,
    internalSecret: e.SVC_INTERNAL_SECRET,
    identityUrl: e.SVC_IDENTITY_INTERNAL_URL,
    logLevel: e.SVC_LOG_LEVEL,
    database: e.SVC_RECALL_DATABASE_URL ? { url: e.SVC_RECALL_DATABASE_URL } : { dataDir: join(dir, 'db') },
    filesDir: join(dir, 'files'),
    masterKey: masterKeyIn(dir, e.SVC_RECALL_MASTER_KEY),
    selfTrace: selfTraceConfig('recall', e, { url: e.SVC_CORE_URL, variable: 'SVC_CORE_URL' }),
  };
}

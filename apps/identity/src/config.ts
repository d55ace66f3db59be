import { join, resolve } from 'node:path';
import { CHECKPOINT_KEY_MIN_LENGTH } from '@svc/audit';
import {
  httpUrl,
  internalSecret,
  logLevel,
  parseEnv,
  portOf,
  resolveDataDir,
  trustedProxies,
} from '@svc/config';
import type { PostgresOptions } from '@svc/postgres';
import { type SelfTraceConfig, selfTraceConfig, selfTraceEnv } from '@svc/self-trace';
import { z } from 'zod';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  MAX_ACCESS_TOKEN_TTL_SECONDS,
  OAUTH_MOUNT,
  type OAuthOptions,
} from './oauth/oauth-options';

const emptyAsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const identityEnvSchema = z
  .object({
    SVC_IDENTITY_PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65535).optional()),
    SVC_IDENTITY_INTERNAL_URL: z.preprocess(emptyAsUnset, httpUrl.optional()),
    SVC_IDENTITY_HOST: z.string().min(1).default('0.0.0.0'),
    SVC_INTERNAL_SECRET: internalSecret,
    SVC_IDENTITY_DATABASE_URL: z.preprocess(
      emptyAsUnset,
      z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
    ),
    SVC_OBSERVABILITY_ENDPOINT: z.preprocess(emptyAsUnset, httpUrl.default('http://localhost:8080')),
    SVC_LOG_LEVEL: logLevel,
    SVC_AUDIT_CHECKPOINT_DIR: z.preprocess(emptyAsUnset, z.string().optional()),
    SVC_AUDIT_CHECKPOINT_KEY: z.preprocess(
      emptyAsUnset,
      z
        .string()
        .min(
          CHECKPOINT_KEY_MIN_LENGTH,
          `must be at least ${CHECKPOINT_KEY_MIN_LENGTH} characters (unset: a key is generated into the checkpoint dir)`,
        )
        .optional(),
    ),
    // The stack traced by itself: identity calls no core otherwise, so the core's internal address
    // is its own variable (SVC_OBSERVABILITY_ENDPOINT here is the public one written into DSNs).
    SVC_CORE_URL: z.preprocess(emptyAsUnset, httpUrl.optional()),
    // OAuth sign-in for MCP clients (docs/console.md): identity's public address (the issuer is it
    // plus /oauth), the gateway's as clients reach it (the token's resource is it plus /mcp), and
    // the console's (the consent page).
    SVC_IDENTITY_PUBLIC_URL: z.preprocess(emptyAsUnset, httpUrl.optional()),
    SVC_PUBLIC_URL: z.preprocess(emptyAsUnset, httpUrl.default('http://localhost:8092')),
    SVC_CONSOLE_PUBLIC_URL: z.preprocess(emptyAsUnset, httpUrl.default('http://localhost:8094')),
    // Short-lived by design (a client refreshes); tests shorten it to see a token expire.
    SVC_OAUTH_ACCESS_TOKEN_TTL_SECONDS: z.preprocess(
      emptyAsUnset,
      z.coerce
        .number()
        .int()
        .min(1)
        .max(MAX_ACCESS_TOKEN_TTL_SECONDS, 'must be at most 3600 (an hour): access tokens are short-lived')
        .default(ACCESS_TOKEN_TTL_SECONDS),
    ),
    // Behind a reverse proxy: whose X-Forwarded-For names the client that throttling counts.
    SVC_IDENTITY_TRUSTED_PROXIES: trustedProxies,
    ...selfTraceEnv,
  })
  .transform((env) => ({
    // Its own port variable wins; else the port of the URL the other services use to reach it.
    port: env.SVC_IDENTITY_PORT ?? portOf(env.SVC_IDENTITY_INTERNAL_URL, 8081),
    host: env.SVC_IDENTITY_HOST,
    internalSecret: env.SVC_INTERNAL_SECRET,
    databaseUrl: env.SVC_IDENTITY_DATABASE_URL,
    ingestEndpoint: env.SVC_OBSERVABILITY_ENDPOINT,
    logLevel: env.SVC_LOG_LEVEL,
    checkpointDir: env.SVC_AUDIT_CHECKPOINT_DIR,
    checkpointKey: env.SVC_AUDIT_CHECKPOINT_KEY,
    selfTraceEnv: {
      SVC_SELF_TRACE_PROJECT: env.SVC_SELF_TRACE_PROJECT,
      SVC_SELF_TRACE_SAMPLE_RATE: env.SVC_SELF_TRACE_SAMPLE_RATE,
    },
    coreUrl: env.SVC_CORE_URL,
    identityPublicUrl: env.SVC_IDENTITY_PUBLIC_URL,
    gatewayPublicUrl: env.SVC_PUBLIC_URL,
    consolePublicUrl: env.SVC_CONSOLE_PUBLIC_URL,
    accessTokenTtlSeconds: env.SVC_OAUTH_ACCESS_TOKEN_TTL_SECONDS,
    trustedProxies: env.SVC_IDENTITY_TRUSTED_PROXIES,
  }));

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Where the audit chain is anchored outside the database (docs/internal-api.md, "Audit checkpoints"). */
export interface AuditCheckpointConfig {
  /** The checkpoint log and, unless `key` is set, the generated key file live here. */
  dir: string;
  /** SVC_AUDIT_CHECKPOINT_KEY; undefined: read or generate `<dir>/audit-checkpoint-key`. */
  key: string | undefined;
}

export type IdentityConfig = Omit<
  z.output<typeof identityEnvSchema>,
  | 'databaseUrl'
  | 'checkpointDir'
  | 'checkpointKey'
  | 'selfTraceEnv'
  | 'coreUrl'
  | 'identityPublicUrl'
  | 'gatewayPublicUrl'
  | 'consolePublicUrl'
  | 'accessTokenTtlSeconds'
> & {
  /** The OAuth authorization server's addresses. */
  oauth: OAuthOptions;
  /** Embedded PGlite under `<data dir>/identity` unless SVC_IDENTITY_DATABASE_URL names a server. */
  database: PostgresOptions;
  auditCheckpoints: AuditCheckpointConfig;
  /** SVC_SELF_TRACE_PROJECT (sent to SVC_CORE_URL): where identity's own spans go; undefined: not traced. */
  selfTrace: SelfTraceConfig | undefined;
};

/**
 * The checkpoint dir defaults to `<data dir>/audit-checkpoints`, also with a PostgreSQL URL (the data
 * dir always resolves: SVC_DATA_DIR, else .data). Never inside PGlite's `<data dir>/identity`: a
 * database superuser can read any file of the cluster directory with pg_read_file(), and the key
 * must stay out of the attacker's reach.
 */
const CHECKPOINT_DIR_NAME = 'audit-checkpoints';

export function loadIdentityConfig(
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): IdentityConfig {
  const {
    databaseUrl,
    checkpointDir,
    checkpointKey,
    selfTraceEnv,
    coreUrl,
    identityPublicUrl,
    gatewayPublicUrl,
    consolePublicUrl,
    accessTokenTtlSeconds,
    ...rest
  } = parseEnv('identity', identityEnvSchema, env);
  const dataDir = resolveDataDir(env, cwd);
  return {
    ...rest,
    oauth: {
      issuer: `${trimSlash(identityPublicUrl ?? `http://localhost:${rest.port}`)}${OAUTH_MOUNT}`,
      resource: `${trimSlash(gatewayPublicUrl)}/mcp`,
      consoleUrl: trimSlash(consolePublicUrl),
      accessTokenTtlSeconds,
    },
    selfTrace: selfTraceConfig('identity', selfTraceEnv, { url: coreUrl, variable: 'SVC_CORE_URL' }),
    database: databaseUrl ? { url: databaseUrl } : { dataDir: join(dataDir, 'identity') },
    auditCheckpoints: {
      // A relative path counts from where the command was typed, as SVC_DATA_DIR does.
      dir: checkpointDir
        ? resolve(env.INIT_CWD?.trim() || cwd, checkpointDir)
        : join(dataDir, CHECKPOINT_DIR_NAME),
      key: checkpointKey,
    },
  };
}

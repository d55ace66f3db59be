import { join } from 'node:path';
import { httpUrl, internalSecret, logLevel, parseEnv, portOf, resolveDataDir } from '@svc/config';
import type { PostgresOptions } from '@svc/postgres';
import { z } from 'zod';

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
  })
  .transform((env) => ({
    // Its own port variable wins; else the port of the URL the other services use to reach it.
    port: env.SVC_IDENTITY_PORT ?? portOf(env.SVC_IDENTITY_INTERNAL_URL, 8081),
    host: env.SVC_IDENTITY_HOST,
    internalSecret: env.SVC_INTERNAL_SECRET,
    databaseUrl: env.SVC_IDENTITY_DATABASE_URL,
    ingestEndpoint: env.SVC_OBSERVABILITY_ENDPOINT,
    logLevel: env.SVC_LOG_LEVEL,
  }));

export type IdentityConfig = Omit<z.output<typeof identityEnvSchema>, 'databaseUrl'> & {
  /** Embedded PGlite under `<data dir>/identity` unless SVC_IDENTITY_DATABASE_URL names a server. */
  database: PostgresOptions;
};

export function loadIdentityConfig(
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): IdentityConfig {
  const { databaseUrl, ...rest } = parseEnv('identity', identityEnvSchema, env);
  return {
    ...rest,
    database: databaseUrl ? { url: databaseUrl } : { dataDir: join(resolveDataDir(env, cwd), 'identity') },
  };
}

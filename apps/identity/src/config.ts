import { join, resolve } from 'node:path';
import { httpUrl, internalSecret, logLevel, parseEnv, portOf } from '@svc/config';
import type { PostgresOptions } from '@svc/postgres';
import { z } from 'zod';

const emptyAsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

export const identityEnvSchema = z
  .object({
    SVC_IDENTITY_PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65535).optional()),
    SVC_IDENTITY_INTERNAL_URL: z.preprocess(emptyAsUnset, httpUrl.optional()),
    SVC_IDENTITY_HOST: z.string().min(1).default('0.0.0.0'),
    SVC_INTERNAL_SECRET: internalSecret,
    SVC_IDENTITY_DATABASE_URL: z.preprocess(
      emptyAsUnset,
      z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
    ),
    SVC_DATA_DIR: z.preprocess(emptyAsUnset, z.string().default('./.data')),
    SVC_OBSERVABILITY_ENDPOINT: z.preprocess(emptyAsUnset, httpUrl.default('http://localhost:8080')),
    SVC_LOG_LEVEL: logLevel,
  })
  .transform((env) => ({
    // Its own port variable wins; else the port of the URL the other services use to reach it.
    port: env.SVC_IDENTITY_PORT ?? portOf(env.SVC_IDENTITY_INTERNAL_URL, 8081),
    host: env.SVC_IDENTITY_HOST,
    internalSecret: env.SVC_INTERNAL_SECRET,
    database: (env.SVC_IDENTITY_DATABASE_URL
      ? { url: env.SVC_IDENTITY_DATABASE_URL }
      : { dataDir: join(resolve(env.SVC_DATA_DIR), 'identity') }) satisfies PostgresOptions,
    ingestEndpoint: env.SVC_OBSERVABILITY_ENDPOINT,
    logLevel: env.SVC_LOG_LEVEL,
  }));

export type IdentityConfig = z.output<typeof identityEnvSchema>;

export function loadIdentityConfig(env: Record<string, string | undefined>): IdentityConfig {
  return parseEnv('identity', identityEnvSchema, env);
}

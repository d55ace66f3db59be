import { join, resolve } from 'node:path';
import {
  httpUrl,
  internalSecret,
  logLevel,
  optionalUrl,
  parseEnv,
  portOf,
  resolveDataDir,
} from '@svc/config';
import { type SelfTraceConfig, selfTraceConfig, selfTraceEnv } from '@svc/self-trace';
import { z } from 'zod';
import { defaultPerProject } from './scheduling/fair-scheduler';
import type { Retention } from './storage/migrations';

const days = (fallback: number) => z.coerce.number().int().min(1).max(3650).default(fallback);

const coreEnv = z.object({
  SVC_CORE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SVC_CORE_HOST: z.string().min(1).default('0.0.0.0'),
  SVC_OBSERVABILITY_ENDPOINT: httpUrl.default('http://localhost:8080'),
  SVC_INTERNAL_SECRET: internalSecret,
  SVC_IDENTITY_INTERNAL_URL: httpUrl.default('http://localhost:8081'),
  // A ClickHouse server when set; otherwise embedded chDB under <data dir>/clickhouse.
  SVC_CLICKHOUSE_URL: optionalUrl,
  SVC_CLICKHOUSE_USER: z.string().optional(),
  SVC_CLICKHOUSE_PASSWORD: z.string().optional(),
  SVC_CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier')
    .default('observability'),
  // Uploaded debug files (source maps, Breakpad, dSYM, .so); default <data dir>/debug-files.
  SVC_DEBUG_FILES_DIR: z.string().min(1).optional(),
  SVC_RETENTION_DAYS: days(90),
  SVC_SPAN_RETENTION_DAYS: days(14),
  SVC_LOG_LEVEL: logLevel,
  // How tool queries share the engine (docs/decisions.md, "Fair sharing of the core").
  SVC_CORE_QUERY_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  SVC_CORE_QUERIES_PER_PROJECT: z.coerce.number().int().min(1).max(256).optional(),
  SVC_CORE_QUEUED_PER_PROJECT: z.coerce.number().int().min(0).max(10_000).default(64),
  SVC_CORE_CALL_BUDGET_MS: z.coerce.number().int().min(1000).max(600_000).default(12_000),
  SVC_CORE_QUERY_MAX_MEMORY_MB: z.coerce.number().int().min(16).max(1_048_576).default(2048),
  // The stack traced by itself: the core sends its own spans to itself (SVC_OBSERVABILITY_ENDPOINT).
  ...selfTraceEnv,
});

export type StorageConfig =
  | { kind: 'server'; url: string; database: string; username?: string; password?: string }
  | { kind: 'embedded'; path: string; database: string };

export interface QueryConfig {
  /** Queries running at once (embedded: chDB sessions; server: sockets). */
  concurrency: number;
  perProject: number;
  queuedPerProject: number;
  callBudgetMs: number;
  maxMemoryUsageBytes: number;
}

export interface CoreConfig {
  port: number;
  host: string;
  internalSecret: string;
  identityUrl: string;
  storage: StorageConfig;
  retention: Retention;
  logLevel: string;
  /** Absolute directory of uploaded debug files. */
  debugFilesDir: string;
  queries: QueryConfig;
  /** SVC_SELF_TRACE_PROJECT: where the core's own spans go; undefined: not traced. */
  selfTrace: SelfTraceConfig | undefined;
}

export function loadCoreConfig(
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): CoreConfig {
  const e = parseEnv('observability-core', coreEnv, env);
  const dataDir = resolveDataDir(env, cwd);
  // The core listens where the other services are told to find it, unless SVC_CORE_PORT says otherwise.
  const listenPort = e.SVC_CORE_PORT ?? portOf(e.SVC_OBSERVABILITY_ENDPOINT, 8080);
  const storage: StorageConfig = e.SVC_CLICKHOUSE_URL
    ? {
        kind: 'server',
        url: e.SVC_CLICKHOUSE_URL,
        database: e.SVC_CLICKHOUSE_DATABASE,
        username: e.SVC_CLICKHOUSE_USER,
        password: e.SVC_CLICKHOUSE_PASSWORD,
      }
    : {
        kind: 'embedded',
        path: join(dataDir, 'clickhouse'),
        database: e.SVC_CLICKHOUSE_DATABASE,
      };
  // Embedded: chDB sessions run in parallel, one query each; more than a few only share the cores.
  const concurrency = e.SVC_CORE_QUERY_CONCURRENCY ?? (storage.kind === 'embedded' ? 4 : 16);
  const perProject = e.SVC_CORE_QUERIES_PER_PROJECT ?? defaultPerProject(concurrency);
  if (perProject > concurrency) {
    throw new Error(
      `observability-core: SVC_CORE_QUERIES_PER_PROJECT (${perProject}) cannot exceed SVC_CORE_QUERY_CONCURRENCY (${concurrency}).`,
    );
  }
  return {
    port: listenPort,
    host: e.SVC_CORE_HOST,
    internalSecret: e.SVC_INTERNAL_SECRET,
    identityUrl: e.SVC_IDENTITY_INTERNAL_URL,
    storage,
    retention: { defaultDays: e.SVC_RETENTION_DAYS, spanDays: e.SVC_SPAN_RETENTION_DAYS },
    logLevel: e.SVC_LOG_LEVEL,
    debugFilesDir: e.SVC_DEBUG_FILES_DIR
      ? resolve(env.INIT_CWD?.trim() || cwd, e.SVC_DEBUG_FILES_DIR)
      : join(dataDir, 'debug-files'),
    queries: {
      concurrency,
      perProject,
      queuedPerProject: e.SVC_CORE_QUEUED_PER_PROJECT,
      callBudgetMs: e.SVC_CORE_CALL_BUDGET_MS,
      maxMemoryUsageBytes: e.SVC_CORE_QUERY_MAX_MEMORY_MB * 2 ** 20,
    },
    selfTrace: selfTraceConfig('observability-core', e, {
      url: e.SVC_OBSERVABILITY_ENDPOINT,
      variable: 'SVC_OBSERVABILITY_ENDPOINT',
    }),
  };
}

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INTERNAL_SECRET_FILE, parseEnv, port, portOf, resolveDataDir } from '@svc/config';
import { z } from 'zod';
import { oauthPublicUrls } from './public-urls';

// The standalone takes its ports from the same variables as the separate services, its data dir
// as every entry point does (resolveDataDir: default .data at the repository root), and defaults
// every service to loopback.
const standaloneEnv = z.object({
  SVC_DEMO_SIZE: z.coerce.number().min(0.05).max(1000).default(1),
  SVC_DEMO_SEED: z.coerce.number().int().default(20261122),
  SVC_DEMO_DAYS: z.coerce.number().int().min(1).max(60).default(30),
  SVC_MCP_HTTP_PORT: port(8092),
  // Read here only for the public URLs' defaults (public-urls.ts); each service parses its own.
  SVC_CONSOLE_PORT: port(8094),
  SVC_IDENTITY_PORT: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce.number().int().min(0).max(65535).optional(),
  ),
  SVC_STANDALONE_HOST: z.string().min(1).default('127.0.0.1'),
  /** Tests: where to write {urls, project_id, org_id, token} once everything listens. */
  SVC_STANDALONE_READY_FILE: z.string().optional(),
  SVC_LOG_LEVEL: z.string().default('warn'),
  // The stack traced by itself (README): on unless 0. SVC_SELF_TRACE_PROJECT, when set, names the
  // project; otherwise the standalone makes a "stack" project in the demo org and uses it.
  SVC_STANDALONE_SELF_TRACE: z.enum(['0', '1']).default('1'),
});

export interface StandaloneConfig {
  dataDir: string;
  host: string;
  demo: { size: number; seed: number; days: number };
  readyFile: string | undefined;
  gatewayPort: number;
  internalSecret: string;
  /**
   * Self-tracing: off, the project SVC_SELF_TRACE_PROJECT names, or the "stack" project the
   * standalone makes (withSelfTraceProject puts it into serviceEnv once it exists).
   */
  selfTrace: { kind: 'off' } | { kind: 'given'; project: string } | { kind: 'stack' };
  /** The environment every service's own config.ts parses, with the standalone's defaults filled in. */
  serviceEnv: Record<string, string | undefined>;
}

/** The internal secret: from the env, else the one persisted under the data dir (made on first start). */
export function resolveInternalSecret(dataDir: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const path = join(dataDir, INTERNAL_SECRET_FILE);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return secret;
}

export function loadStandaloneConfig(
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): StandaloneConfig {
  const e = parseEnv('standalone', standaloneEnv, env);
  const dataDir = resolveDataDir(env, cwd);
  const internalSecret = resolveInternalSecret(dataDir, env.SVC_INTERNAL_SECRET?.trim() || undefined);
  const host = e.SVC_STANDALONE_HOST;
  const coreUrl = env.SVC_OBSERVABILITY_ENDPOINT || 'http://localhost:8080';
  const given = env.SVC_SELF_TRACE_PROJECT?.trim();
  const selfTrace: StandaloneConfig['selfTrace'] =
    e.SVC_STANDALONE_SELF_TRACE === '0'
      ? { kind: 'off' }
      : given
        ? { kind: 'given', project: given }
        : { kind: 'stack' };
  const serviceEnv: Record<string, string | undefined> = {
    ...env,
    SVC_DATA_DIR: dataDir,
    SVC_INTERNAL_SECRET: internalSecret,
    SVC_OBSERVABILITY_ENDPOINT: coreUrl,
    // Identity and recall send their own spans to the core here (the others use the endpoint above).
    SVC_CORE_URL: env.SVC_CORE_URL || coreUrl,
    SVC_IDENTITY_INTERNAL_URL: env.SVC_IDENTITY_INTERNAL_URL || 'http://localhost:8081',
    SVC_RECALL_ENDPOINT: env.SVC_RECALL_ENDPOINT || 'http://localhost:8087',
    SVC_RECALL_HOST: env.SVC_RECALL_HOST || host,
    SVC_COPILOT_ENDPOINT: env.SVC_COPILOT_ENDPOINT || 'http://localhost:8093',
    SVC_COPILOT_HOST: env.SVC_COPILOT_HOST || host,
    SVC_CORE_HOST: env.SVC_CORE_HOST || host,
    SVC_IDENTITY_HOST: env.SVC_IDENTITY_HOST || host,
    SVC_MCP_HTTP_HOST: env.SVC_MCP_HTTP_HOST || host,
    SVC_CONSOLE_HOST: env.SVC_CONSOLE_HOST || host,
    // The console calls tools through this stack's gateway (its port is known once it listens).
    SVC_GATEWAY_URL: env.SVC_GATEWAY_URL || `http://localhost:${e.SVC_MCP_HTTP_PORT}`,
    SVC_LOG_LEVEL: e.SVC_LOG_LEVEL,
    // What OAuth clients are told (the gateway's resource, identity's issuer, the consent page):
    // the ports this process listens on, unless set.
    ...oauthPublicUrls(env, {
      gateway: e.SVC_MCP_HTTP_PORT,
      identity: e.SVC_IDENTITY_PORT ?? portOf(env.SVC_IDENTITY_INTERNAL_URL || 'http://localhost:8081', 8081),
      console: e.SVC_CONSOLE_PORT,
    }),
    // Set by withSelfTraceProject once the project exists; off means off for every service.
    ...(selfTrace.kind === 'given' ? {} : { SVC_SELF_TRACE_PROJECT: undefined }),
    ...(selfTrace.kind === 'off' ? { SVC_SELF_TRACE_SAMPLE_RATE: undefined } : {}),
  };
  return {
    dataDir,
    host,
    demo: { size: e.SVC_DEMO_SIZE, seed: e.SVC_DEMO_SEED, days: e.SVC_DEMO_DAYS },
    readyFile: e.SVC_STANDALONE_READY_FILE,
    gatewayPort: e.SVC_MCP_HTTP_PORT,
    internalSecret,
    selfTrace,
    serviceEnv,
  };
}

/** The configuration with every service tracing itself into `projectId`. */
export function withSelfTraceProject(config: StandaloneConfig, projectId: string): StandaloneConfig {
  return { ...config, serviceEnv: { ...config.serviceEnv, SVC_SELF_TRACE_PROJECT: projectId } };
}

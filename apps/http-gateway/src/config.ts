import { availableParallelism } from 'node:os';
import { flag, httpUrl, internalSecret, logLevel, optionalUrl, parseEnv, port } from '@svc/config';
import { type SelfTraceConfig, selfTraceConfig, selfTraceEnv } from '@svc/self-trace';
import { DEFAULT_ANSWER_BUDGET } from '@svc/tool-server';
import { z } from 'zod';
import type { LimitsConfig } from './rate-limit';
import { DEFAULT_SESSION_CAPS, type SessionCapLimits } from './session-caps';

const BODY_LIMIT = /^(\d+)\s*(b|kb|mb)?$/i;
const UNIT_BYTES = { b: 1, kb: 1024, mb: 1024 * 1024 } as const;

/** Bytes of an express-style size ("1mb", "512kb", "2048"). */
export function bodyLimitBytes(limit: string): number {
  const m = BODY_LIMIT.exec(limit.trim());
  if (!m) throw new Error(`invalid body limit: ${limit}`);
  const unit = (m[2]?.toLowerCase() ?? 'b') as keyof typeof UNIT_BYTES;
  return Number(m[1]) * UNIT_BYTES[unit];
}

const originList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter((o) => o !== ''),
  )
  .pipe(z.array(z.url({ protocol: /^https?$/, error: 'each origin must be an http(s) URL' })));

const gatewayEnv = z.object({
  SVC_MCP_HTTP_PORT: port(8092),
  // Loopback by default: then the Host header is checked too (DNS rebinding). Containers set 0.0.0.0.
  SVC_MCP_HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  SVC_OBSERVABILITY_ENDPOINT: httpUrl.default('http://localhost:8080'),
  SVC_IDENTITY_INTERNAL_URL: httpUrl.default('http://localhost:8081'),
  // Recall and copilot have documented default addresses, but an unset endpoint here means
  // "not deployed": both are optional services. Decision: unset or empty = not deployed (the
  // group is never registered); any URL set, including the documented default
  // http://localhost:8087 / :8093, = deployed, and its tools are listed while its /healthz answers.
  SVC_RECALL_ENDPOINT: optionalUrl,
  SVC_COPILOT_ENDPOINT: optionalUrl,
  // No public tool uses the config service; parsed so a typo fails fast, otherwise unused.
  SVC_CONFIG_ENDPOINT: optionalUrl,
  SVC_INTERNAL_SECRET: internalSecret,
  SVC_ALLOWED_ORIGINS: originList,
  SVC_MCP_STATELESS: flag,
  SVC_METRICS_PORT: port(9464),
  SVC_BODY_LIMIT: z
    .string()
    .default('1mb')
    .refine((v) => BODY_LIMIT.test(v.trim()), 'must be a size such as 1mb, 512kb or 65536'),
  SVC_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  SVC_PROJECT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(3000),
  SVC_MAX_CONCURRENT_PER_TOKEN: z.coerce.number().int().min(1).default(32),
  SVC_MAX_CONCURRENT_PER_PROJECT: z.coerce.number().int().min(1).default(64),
  // Below the 128 connections the gateway keeps to each backend: one org cannot hold them all.
  SVC_MAX_CONCURRENT_PER_ORG: z.coerce.number().int().min(1).default(96),
  // MCP sessions held by this instance: all together, per token, per project, per org (session-caps.ts).
  SVC_MCP_MAX_SESSIONS: z.coerce.number().int().min(1).default(DEFAULT_SESSION_CAPS.maxSessions),
  SVC_MCP_MAX_SESSIONS_PER_TOKEN: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_SESSION_CAPS.maxSessionsPerToken),
  SVC_MCP_MAX_SESSIONS_PER_PROJECT: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_SESSION_CAPS.maxSessionsPerProject),
  SVC_MCP_MAX_SESSIONS_PER_ORG: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_SESSION_CAPS.maxSessionsPerOrg),
  // Large backend answers handled at once, in MB; also the largest answer a call may return
  // (docs/decisions.md, "Answer budget"). Sized for the gateway's 128 MB heap.
  SVC_ANSWER_BUDGET_MB: z.coerce.number().min(1).max(1024).default(8),
  // Threads that parse and check large answers off the event loop; 0 checks them on it
  // (docs/decisions.md, "Answer workers"). Default: one per core but one, at least 1, at most 2.
  SVC_ANSWER_WORKERS: z.coerce.number().int().min(0).max(16).optional(),
  // 0 turns the token cache off: every call introspects (docs/decisions.md, "Token cache").
  SVC_TOKEN_CACHE: z.enum(['0', '1']).default('1'),
  SVC_PUBLIC_URL: optionalUrl,
  // identity's OAuth issuer, named to MCP clients that sign in (docs/console.md, "Connect with OAuth").
  SVC_OAUTH_ISSUER: optionalUrl,
  SVC_LOG_LEVEL: logLevel,
  // The stack traced by itself: spans go to the core it already calls (SVC_OBSERVABILITY_ENDPOINT).
  ...selfTraceEnv,
});

export interface GatewayConfig {
  port: number;
  host: string;
  coreUrl: string;
  identityUrl: string;
  recallUrl: string | undefined;
  copilotUrl: string | undefined;
  configUrl: string | undefined;
  internalSecret: string;
  allowedOrigins: string[];
  mcpStateless: boolean;
  metricsPort: number;
  bodyLimit: string;
  limits: LimitsConfig;
  /** MCP session caps (SVC_MCP_MAX_SESSIONS*) and the idle timeout. */
  sessions: SessionCapLimits;
  /** Bytes of large answers handled at once (SVC_ANSWER_BUDGET_MB). */
  answerBudgetBytes: number;
  /** Answer worker threads (SVC_ANSWER_WORKERS); 0: answers are checked on the event loop. */
  answerWorkers: number;
  tokenCache: boolean;
  publicUrl: string | undefined;
  oauthIssuer?: string;
  logLevel: string;
  /** SVC_SELF_TRACE_PROJECT: where the gateway's own spans go; undefined: not traced. */
  selfTrace: SelfTraceConfig | undefined;
}

/**
 * A core is left to the event loop; at most two by default (docs/decisions.md, "Answer workers"):
 * large answers are a few at a time (the answer budget's `maxLarge`), each checked in tens of ms.
 */
export function defaultAnswerWorkers(cores = availableParallelism()): number {
  return Math.max(1, Math.min(MAX_DEFAULT_ANSWER_WORKERS, DEFAULT_ANSWER_BUDGET.maxLarge, cores - 1));
}
const MAX_DEFAULT_ANSWER_WORKERS = 2;

export function loadGatewayConfig(env: Record<string, string | undefined>): GatewayConfig {
  const e = parseEnv('http-gateway', gatewayEnv, env);
  return {
    port: e.SVC_MCP_HTTP_PORT,
    host: e.SVC_MCP_HTTP_HOST,
    coreUrl: e.SVC_OBSERVABILITY_ENDPOINT,
    identityUrl: e.SVC_IDENTITY_INTERNAL_URL,
    recallUrl: e.SVC_RECALL_ENDPOINT,
    copilotUrl: e.SVC_COPILOT_ENDPOINT,
    configUrl: e.SVC_CONFIG_ENDPOINT,
    internalSecret: e.SVC_INTERNAL_SECRET,
    allowedOrigins: e.SVC_ALLOWED_ORIGINS,
    mcpStateless: e.SVC_MCP_STATELESS,
    metricsPort: e.SVC_METRICS_PORT,
    bodyLimit: e.SVC_BODY_LIMIT.trim(),
    limits: {
      perTokenPerMinute: e.SVC_RATE_LIMIT_PER_MINUTE,
      perProjectPerMinute: e.SVC_PROJECT_RATE_LIMIT_PER_MINUTE,
      concurrentPerToken: e.SVC_MAX_CONCURRENT_PER_TOKEN,
      concurrentPerProject: e.SVC_MAX_CONCURRENT_PER_PROJECT,
      concurrentPerOrg: e.SVC_MAX_CONCURRENT_PER_ORG,
    },
    sessions: {
      idleMs: DEFAULT_SESSION_CAPS.idleMs,
      maxSessions: e.SVC_MCP_MAX_SESSIONS,
      maxSessionsPerToken: e.SVC_MCP_MAX_SESSIONS_PER_TOKEN,
      maxSessionsPerProject: e.SVC_MCP_MAX_SESSIONS_PER_PROJECT,
      maxSessionsPerOrg: e.SVC_MCP_MAX_SESSIONS_PER_ORG,
    },
    answerBudgetBytes: Math.round(e.SVC_ANSWER_BUDGET_MB * 1024 * 1024),
    answerWorkers: e.SVC_ANSWER_WORKERS ?? defaultAnswerWorkers(),
    tokenCache: e.SVC_TOKEN_CACHE === '1',
    publicUrl: e.SVC_PUBLIC_URL,
    ...(e.SVC_OAUTH_ISSUER ? { oauthIssuer: e.SVC_OAUTH_ISSUER } : {}),
    logLevel: e.SVC_LOG_LEVEL,
    selfTrace: selfTraceConfig('http-gateway', e, {
      url: e.SVC_OBSERVABILITY_ENDPOINT,
      variable: 'SVC_OBSERVABILITY_ENDPOINT',
    }),
  };
}

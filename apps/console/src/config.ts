import { join } from 'node:path';
import {
  ConfigError,
  httpUrl,
  internalSecret,
  logLevel,
  optionalUrl,
  parseEnv,
  port,
  resolveDataDir,
  trustedProxies,
} from '@svc/config';
import { z } from 'zod';

const consoleEnv = z.object({
  SVC_CONSOLE_PORT: port(8094),
  // Loopback by default, as the gateway; containers set 0.0.0.0.
  SVC_CONSOLE_HOST: z.string().min(1).default('127.0.0.1'),
  // Where people open the console. https makes the session cookie Secure.
  SVC_CONSOLE_PUBLIC_URL: optionalUrl,
  SVC_IDENTITY_INTERNAL_URL: httpUrl.default('http://localhost:8081'),
  // Where the console's own tool calls go: a gateway, the same pipeline as every MCP and REST client.
  SVC_GATEWAY_URL: httpUrl.default('http://localhost:8092'),
  // The gateway's address as clients reach it, for the ready-to-paste configs (default SVC_GATEWAY_URL).
  SVC_PUBLIC_URL: optionalUrl,
  // Recall's console side (trigger, download). Unset or empty: recall is not deployed.
  SVC_RECALL_ENDPOINT: optionalUrl,
  SVC_INTERNAL_SECRET: internalSecret,
  SVC_LOG_LEVEL: logLevel,
  SVC_CONSOLE_TRUSTED_PROXIES: trustedProxies,
  // The assistant (docs/console.md, "Assistant"): off until a model is named.
  SVC_ASSISTANT_PROVIDER: z.enum(['openai-compatible', 'anthropic']).default('openai-compatible'),
  SVC_ASSISTANT_BASE_URL: optionalUrl,
  SVC_ASSISTANT_API_KEY: z.string().trim().optional(),
  SVC_ASSISTANT_MODEL: z.string().trim().max(200).optional(),
  SVC_ASSISTANT_MAX_TOOL_CALLS: z.coerce.number().int().min(1).max(50).default(8),
  SVC_ASSISTANT_MAX_RESULT_CHARS: z.coerce.number().int().min(1000).max(1_000_000).default(40_000),
  SVC_ASSISTANT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
  // Conversations: a PostgreSQL server, else embedded PGlite under <data dir>/console.
  SVC_CONSOLE_DATABASE_URL: optionalPostgresUrl(),
});

function optionalPostgresUrl() {
  return z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim() : undefined))
    .pipe(z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional());
}

/** The assistant's model and its per-turn budgets; undefined while no model is configured. */
export interface AssistantConfig {
  provider: 'openai-compatible' | 'anthropic';
  /** The API's base URL (no trailing slash), e.g. http://localhost:11434/v1 for Ollama. */
  baseUrl: string;
  /** Optional for a local server (Ollama, llama.cpp, vLLM). */
  apiKey: string | undefined;
  model: string;
  /** Tool calls the model may make in one turn. */
  maxToolCalls: number;
  /** Characters of tool results sent to the model in one turn (a larger result is cut, with a note). */
  maxResultChars: number;
  /** How long one model request may take to start answering. */
  timeoutMs: number;
  /** Where conversations are kept: a PostgreSQL server, else PGlite in a folder. */
  database: { url: string } | { dataDir: string };
}

const ANTHROPIC_URL = 'https://api.anthropic.com/v1';

export interface ConsoleConfig {
  port: number;
  host: string;
  /** The console's own public base URL (no trailing slash). */
  publicUrl: string;
  identityUrl: string;
  gatewayUrl: string;
  /** The gateway as MCP clients reach it (no trailing slash). */
  gatewayPublicUrl: string;
  recallUrl: string | undefined;
  internalSecret: string;
  logLevel: z.output<typeof logLevel>;
  /** Reverse proxies whose X-Forwarded-For is believed (SVC_CONSOLE_TRUSTED_PROXIES); empty: none. */
  trustedProxies: string[];
  assistant: AssistantConfig | undefined;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The assistant's settings, or why they cannot work (a model without the URL or key it needs). */
function assistantOf(
  e: z.output<typeof consoleEnv>,
  env: Record<string, string | undefined>,
  cwd: string,
): AssistantConfig | undefined {
  if (!e.SVC_ASSISTANT_MODEL) return undefined;
  const anthropic = e.SVC_ASSISTANT_PROVIDER === 'anthropic';
  const baseUrl = e.SVC_ASSISTANT_BASE_URL ?? (anthropic ? ANTHROPIC_URL : undefined);
  const problems = [
    ...(baseUrl
      ? []
      : ['SVC_ASSISTANT_BASE_URL: is required with SVC_ASSISTANT_MODEL (e.g. http://localhost:11434/v1)']),
    ...(anthropic && !e.SVC_ASSISTANT_API_KEY ? ['SVC_ASSISTANT_API_KEY: is required for Anthropic'] : []),
  ];
  if (problems.length > 0) throw new ConfigError('console', problems);
  return {
    provider: e.SVC_ASSISTANT_PROVIDER,
    baseUrl: trimSlash(baseUrl!),
    apiKey: e.SVC_ASSISTANT_API_KEY || undefined,
    model: e.SVC_ASSISTANT_MODEL,
    maxToolCalls: e.SVC_ASSISTANT_MAX_TOOL_CALLS,
    maxResultChars: e.SVC_ASSISTANT_MAX_RESULT_CHARS,
    timeoutMs: e.SVC_ASSISTANT_TIMEOUT_SECONDS * 1000,
    database: e.SVC_CONSOLE_DATABASE_URL
      ? { url: e.SVC_CONSOLE_DATABASE_URL }
      : { dataDir: join(resolveDataDir(env, cwd), 'console') },
  };
}

export function loadConsoleConfig(
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): ConsoleConfig {
  const e = parseEnv('console', consoleEnv, env);
  return {
    port: e.SVC_CONSOLE_PORT,
    host: e.SVC_CONSOLE_HOST,
    publicUrl: trimSlash(e.SVC_CONSOLE_PUBLIC_URL ?? `http://localhost:${e.SVC_CONSOLE_PORT}`),
    identityUrl: trimSlash(e.SVC_IDENTITY_INTERNAL_URL),
    gatewayUrl: trimSlash(e.SVC_GATEWAY_URL),
    gatewayPublicUrl: trimSlash(e.SVC_PUBLIC_URL ?? e.SVC_GATEWAY_URL),
    recallUrl: e.SVC_RECALL_ENDPOINT && trimSlash(e.SVC_RECALL_ENDPOINT),
    internalSecret: e.SVC_INTERNAL_SECRET,
    logLevel: e.SVC_LOG_LEVEL,
    trustedProxies: e.SVC_CONSOLE_TRUSTED_PROXIES,
    assistant: assistantOf(e, env, cwd),
  };
}

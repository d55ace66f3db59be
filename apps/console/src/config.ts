import { httpUrl, internalSecret, logLevel, optionalUrl, parseEnv, port, trustedProxies } from '@svc/config';
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
});

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
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

export function loadConsoleConfig(env: Record<string, string | undefined>): ConsoleConfig {
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
  };
}

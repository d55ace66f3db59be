import { httpUrl, internalSecret, internalSecretOf, logLevel, optionalUrl, parseEnv } from '@svc/config';
import { catalogToolsets } from '@svc/tool-catalog';
import { z } from 'zod';

const TOOLSET_NAMES = Object.keys(catalogToolsets);

// stdio mode serves exactly one trusted local user (README, "Connecting an MCP client"): it
// refuses to start unless SVC_MCP_STDIO_TRUSTED_LOCAL is exactly "1" and SVC_MCP_PROJECT_ID names
// the project.
export const stdioEnvSchema = z.object({
  SVC_MCP_STDIO_TRUSTED_LOCAL: z.literal('1', {
    error:
      'must be exactly "1": stdio mode has no authentication and is only for a single trusted local user ' +
      '(use the HTTP gateway with a token for anything else)',
  }),
  SVC_MCP_PROJECT_ID: z
    .string({ error: 'is required in stdio mode: it fixes the one project every call is bound to' })
    .trim()
    .min(1, 'must not be empty'),
  SVC_MCP_ORG_ID: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined)),
  SVC_OBSERVABILITY_ENDPOINT: httpUrl.default('http://localhost:8080'),
  SVC_IDENTITY_INTERNAL_URL: httpUrl.default('http://localhost:8081'),
  // Unset: that group is not deployed and its tools are never registered (as in the gateway).
  SVC_RECALL_ENDPOINT: optionalUrl,
  SVC_COPILOT_ENDPOINT: optionalUrl,
  SVC_INTERNAL_SECRET: internalSecret,
  SVC_LOG_LEVEL: logLevel,
  // The groups of tools served, as a client chooses them over HTTP (`X-MCP-Toolsets`). Unset or
  // blank: all of them.
  SVC_MCP_TOOLSETS: z
    .string()
    .optional()
    .transform((v) =>
      [...new Set((v ?? '').split(',').map((name) => name.trim().toLowerCase()))].filter(Boolean),
    )
    .refine((names) => names.every((name) => TOOLSET_NAMES.includes(name)), {
      error: `must be a comma-separated list of toolsets among ${TOOLSET_NAMES.join(', ')}`,
    }),
});

/** The stdio server's configuration, read from the environment once (loadStdioConfig). */
export interface StdioConfig {
  /** SVC_MCP_PROJECT_ID: the one project every call is bound to. */
  projectId: string;
  /** SVC_MCP_ORG_ID: unset, the controlled tools stay hidden (fail closed). */
  orgId: string | undefined;
  coreUrl: string;
  identityUrl: string;
  /** Unset: recall is not deployed. */
  recallUrl: string | undefined;
  /** Unset: copilot is not deployed. */
  copilotUrl: string | undefined;
  internalSecret: string;
  logLevel: string;
  /** SVC_MCP_TOOLSETS: the toolsets served; empty: all. */
  toolsets?: string[];
}

/**
 * The secret may also come from a standalone stack's data dir (resolved as `pnpm start` does), so a
 * local stdio server next to `pnpm start` needs no secret in its client config.
 */
export function loadStdioConfig(
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): StdioConfig {
  const e = parseEnv('stdio-server', stdioEnvSchema, {
    ...env,
    SVC_INTERNAL_SECRET: internalSecretOf(env, cwd),
  });
  return {
    projectId: e.SVC_MCP_PROJECT_ID,
    orgId: e.SVC_MCP_ORG_ID,
    coreUrl: e.SVC_OBSERVABILITY_ENDPOINT,
    identityUrl: e.SVC_IDENTITY_INTERNAL_URL,
    recallUrl: e.SVC_RECALL_ENDPOINT,
    copilotUrl: e.SVC_COPILOT_ENDPOINT,
    internalSecret: e.SVC_INTERNAL_SECRET,
    logLevel: e.SVC_LOG_LEVEL,
    toolsets: e.SVC_MCP_TOOLSETS,
  };
}

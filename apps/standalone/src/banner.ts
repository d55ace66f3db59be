import {
  claudeCodeCommand,
  claudeDesktopJson,
  curlExample,
  inspectorCommand,
  mcpServersJson,
} from '@svc/client-config';
import { stdioJson } from './client-config';
import type { StackUrls } from './stack';

export interface BannerInfo {
  urls: StackUrls;
  /** Optional tool groups: live (their service answers its health check), down, or not deployed. */
  groups: Record<string, string>;
  projectId: string;
  orgId: string;
  dataDir: string;
  /** The repository checkout, for the stdio configuration. */
  repoDir: string;
  /** Present on first start only: tokens are shown once. */
  token?: string;
  seeded?: Record<string, number>;
  startupMs: number;
  /** The project the stack traces itself into; its token only on the start that made it. */
  selfTrace?: { projectId: string; token?: string };
  /** The demo person's console sign-in: on the start that created them only (shown once). */
  consoleLogin?: { email: string; password: string };
}

export function banner(info: BannerInfo): string {
  const lines = [
    '',
    `Observability query stack is running (started in ${(info.startupMs / 1000).toFixed(1)} s)`,
    '',
    `  Data directory  ${info.dataDir}   (pnpm svc finds it too; SVC_DATA_DIR moves it)`,
    `  Web console     ${info.urls.console}   (${consoleLoginText(info)})`,
    `  MCP endpoint    ${info.urls.mcp}`,
    `  REST + OpenAPI  ${info.urls.gateway}/v1/tools/{name}   ${info.urls.gateway}/openapi.json`,
    `  Core (ingest)   ${info.urls.core}/ingest/v1/batch`,
    `  Identity        ${info.urls.identity}`,
    `  Recall          ${info.urls.recall}   (device log uploads and recalls)`,
    `  Copilot         ${info.urls.copilot}   (verify.*: claims checked against the data)`,
    `  Metrics         ${info.urls.metrics}`,
    `  Demo project    ${info.projectId}   (org ${info.orgId})`,
    `  Tool groups     base, trace, ${Object.entries(info.groups)
      .map(([group, state]) => `${group} (${state})`)
      .join(', ')}`,
  ];
  if (info.selfTrace) lines.push(selfTraceLine(info.selfTrace));
  if (info.seeded) {
    const parts = Object.entries(info.seeded)
      .filter(([, n]) => n > 0)
      .map(([type, n]) => `${n} ${type}`);
    lines.push(`  Demo data       ${parts.join(', ')}`);
  }
  lines.push('');
  if (info.token) {
    const endpoint = { mcpUrl: info.urls.mcp, token: info.token };
    lines.push(
      `  Token (shown once, valid 90 days, scope mcp:read): ${info.token}`,
      '',
      'Claude Code:',
      `  ${claudeCodeCommand(endpoint)}`,
      '',
      'Cursor (.cursor/mcp.json) or any StreamableHTTP client:',
      indent(mcpServersJson(endpoint)),
      '',
      'Claude Desktop (claude_desktop_config.json):',
      indent(claudeDesktopJson(endpoint)),
      '',
      'MCP Inspector:',
      `  ${inspectorCommand(endpoint)}`,
      '',
      'REST:',
      `  ${curlExample(info.urls.gateway, info.token)}`,
    );
  } else {
    lines.push(
      '  The demo token was shown at first start (tokens are shown once). Create another with:',
      `    pnpm svc token create --project ${info.projectId}`,
    );
  }
  lines.push(
    '',
    'stdio, for one trusted local user (no token; the project is fixed):',
    indent(
      stdioJson({
        repoDir: info.repoDir,
        projectId: info.projectId,
        orgId: info.orgId,
        coreUrl: info.urls.core,
        identityUrl: info.urls.identity,
        recallUrl: info.urls.recall,
        copilotUrl: info.urls.copilot,
        dataDir: info.dataDir,
      }),
    ),
  );
  lines.push('', 'Stop with Ctrl-C. Data is kept for the next start.', '');
  return lines.join('\n');
}

/**
 * How to look at the stack's own spans. On the start that made the project, a token for it (shown
 * once, like the demo's): the question "why was that call slow?" is one trace.search away. After,
 * the command that mints one: printing a fresh token on every start would leave a live credential
 * per restart.
 */
function selfTraceLine(selfTrace: { projectId: string; token?: string }): string {
  const how = selfTrace.token
    ? `token (shown once): ${selfTrace.token}`
    : `a token: pnpm svc token create --project ${selfTrace.projectId}`;
  return `  Stack's traces  ${selfTrace.projectId}   (its own spans, for trace.search / trace.get; ${how})`;
}

/**
 * The console's sign-in: the demo person's password exists in clear only on the start that made
 * them, so later starts name the command that signs someone up instead.
 */
function consoleLoginText(info: BannerInfo): string {
  return info.consoleLogin
    ? `sign in as ${info.consoleLogin.email}, password ${info.consoleLogin.password} (shown once)`
    : `sign in: the demo login was shown at first start; add a person with pnpm svc user create --org ${info.orgId} --email you@example.com`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

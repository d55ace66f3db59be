import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signIngestHeaders } from '@svc/ingest-auth';
import { buildApps, freePort, type Service, startApp } from '../services';

// Building blocks of the gateway and soak suites: identity, core and gateways as processes.

export const SECRET = 'bench-deploy-secret-0123456789';

export interface Identity {
  service: Service;
  admin(path: string, body: unknown, method?: string): Promise<Record<string, string>>;
}

export async function startIdentity(dataDir: string, databaseUrl?: string): Promise<Identity> {
  buildApps();
  const port = await freePort();
  const service = await startApp(
    'identity',
    {
      SVC_INTERNAL_SECRET: SECRET,
      SVC_DATA_DIR: dataDir,
      SVC_IDENTITY_PORT: String(port),
      SVC_IDENTITY_HOST: '127.0.0.1',
      ...(databaseUrl ? { SVC_IDENTITY_DATABASE_URL: databaseUrl } : {}),
    },
    port,
  );
  return {
    service,
    async admin(path, body, method = 'POST') {
      const res = await fetch(`${service.url}/internal/v1/admin${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-internal-secret': SECRET },
        body: JSON.stringify(body),
      });
      const answer = (await res.json()) as Record<string, string>;
      if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
      return answer;
    },
  };
}

export async function startCore(
  dataDir: string,
  identityUrl: string,
  env: Record<string, string> = {},
): Promise<Service> {
  buildApps();
  const port = await freePort();
  return startApp(
    'observability-core',
    {
      SVC_INTERNAL_SECRET: SECRET,
      SVC_DATA_DIR: dataDir,
      SVC_CORE_PORT: String(port),
      SVC_CORE_HOST: '127.0.0.1',
      // Its own address: where a self-traced core sends its spans.
      SVC_OBSERVABILITY_ENDPOINT: `http://127.0.0.1:${port}`,
      SVC_IDENTITY_INTERNAL_URL: identityUrl,
      ...env,
    },
    port,
  );
}

export async function startGateway(
  identityUrl: string,
  backendUrl: string,
  env: Record<string, string> = {},
  /** The apps directory of another checkout whose gateway bundle is started instead. */
  appsDir?: string,
): Promise<Service> {
  if (!appsDir) buildApps();
  const [port, metrics] = [await freePort(), await freePort()];
  return startApp(
    'http-gateway',
    {
      SVC_INTERNAL_SECRET: SECRET,
      SVC_MCP_HTTP_PORT: String(port),
      SVC_METRICS_PORT: String(metrics),
      SVC_IDENTITY_INTERNAL_URL: identityUrl,
      SVC_OBSERVABILITY_ENDPOINT: backendUrl,
      SVC_RATE_LIMIT_PER_MINUTE: '100000000',
      SVC_PROJECT_RATE_LIMIT_PER_MINUTE: '100000000',
      SVC_MAX_CONCURRENT_PER_TOKEN: '10000',
      SVC_MAX_CONCURRENT_PER_PROJECT: '10000',
      SVC_MAX_CONCURRENT_PER_ORG: '10000',
      ...env,
    },
    port,
    appsDir,
  );
}

export function tempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'svc-bench-deploy-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A project with a token and `lines` log lines in the core, through the real ingest API. */
export async function seedProject(identity: Identity, core: Service, lines = 5000) {
  const boot = await identity.admin('/bootstrap', {
    org_name: 'Bench',
    project_name: 'Bench',
    user_email: 'bench@example.com',
  });
  const { token, token_id } = await identity.admin('/tokens', { project_id: boot.project_id });
  const key = await identity.admin('/ingest-keys', { project_id: boot.project_id });
  const now = Date.now();
  const body = JSON.stringify({
    logs: Array.from({ length: lines }, (_, i) => ({
      timestamp: now - i * 1000,
      level: ['INFO', 'WARN', 'ERROR'][i % 3],
      message: `request ${i} served`,
      source: 'backend',
      user_id: `u${i % 50}`,
    })),
  });
  const signed = signIngestHeaders({ keyId: key.key_id!, secret: key.secret! }, Math.floor(now / 1000), body);
  const res = await fetch(`${core.url}/ingest/v1/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signed },
    body,
  });
  if (!res.ok) throw new Error(`ingest: ${res.status} ${await res.text()}`);
  return { projectId: boot.project_id!, orgId: boot.org_id!, token: token!, tokenId: token_id! };
}

export const MCP_ACCEPT = 'application/json, text/event-stream';
export const PROTOCOL = '2025-06-18';

/** Opens an MCP session for `token` and answers the headers of its further requests. */
export async function mcpSession(gatewayUrl: string, token: string): Promise<Record<string, string>> {
  const init = await fetch(`${gatewayUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  await init.text();
  const headers = {
    'content-type': 'application/json',
    accept: MCP_ACCEPT,
    authorization: `Bearer ${token}`,
    'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': PROTOCOL,
  };
  await fetch(`${gatewayUrl}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.text());
  return headers;
}

export const toolCall = (id: number, name: string, args: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

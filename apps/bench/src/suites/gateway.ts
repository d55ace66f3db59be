import { createHmac } from 'node:crypto';
import { type LoadResult, load } from '../load';
import { startDeployment } from '../services';

export interface GatewayBench {
  core: LoadResult;
  rest: LoadResult;
  mcp: LoadResult;
  peakRssMb: { gateway: number; core: number; identity: number };
}

async function json(url: string, init: RequestInit): Promise<Record<string, string>> {
  const res = await fetch(url, init);
  const body = (await res.json()) as Record<string, string>;
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * docs/architecture.md, performance targets: the gateway's added latency over calling the core directly, REST and MCP,
 * at `connections` concurrent callers, with identity, core and gateway as separate processes.
 */
export async function benchGateway(connections: number, durationMs: number): Promise<GatewayBench> {
  const d = await startDeployment();
  try {
    const admin = (path: string, body: unknown) =>
      json(`${d.identity.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-internal-secret': d.secret },
        body: JSON.stringify(body),
      });
    const boot = await admin('/internal/v1/admin/bootstrap', {
      org_name: 'Bench',
      project_name: 'Bench',
      user_email: 'bench@example.com',
    });
    const { token } = await admin('/internal/v1/admin/tokens', { project_id: boot.project_id });
    const key = await admin('/internal/v1/admin/ingest-keys', { project_id: boot.project_id });
    const now = Date.now();
    const body = JSON.stringify({
      logs: Array.from({ length: 5000 }, (_, i) => ({
        timestamp: now - i * 1000,
        level: ['INFO', 'WARN', 'ERROR'][i % 3],
        message: `request ${i} served`,
        source: 'backend',
        user_id: `u${i % 50}`,
      })),
    });
    const ts = Math.floor(now / 1000);
    const mac = createHmac('sha256', key.secret!).update(`${ts}.`).update(body).digest('hex');
    await json(`${d.core.url}/ingest/v1/batch`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-svc-key': key.key_id!,
        'x-svc-timestamp': String(ts),
        'x-svc-signature': `v1=${mac}`,
      },
      body,
    });

    const args = { limit: 1 };
    const opts = { connections, durationMs };
    const core = await load(`${d.core.url}/internal/v1/projects/${boot.project_id}/tools/log.recent`, {
      ...opts,
      headers: { 'content-type': 'application/json', 'x-internal-secret': d.secret },
      body: JSON.stringify(args),
    });
    const rest = await load(`${d.gateway.url}/v1/tools/log.recent`, {
      ...opts,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(args),
    });

    const init = await fetch(`${d.gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'bench', version: '1' },
        },
      }),
    });
    await init.text();
    const session = init.headers.get('mcp-session-id') ?? '';
    const mcpHeaders = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
    };
    await fetch(`${d.gateway.url}/mcp`, {
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const mcp = await load(`${d.gateway.url}/mcp`, {
      ...opts,
      headers: mcpHeaders,
      // Ids must be unique within the session: the transport routes each answer by its id.
      body: (n) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: n + 1,
          method: 'tools/call',
          params: { name: 'log.recent', arguments: args },
        }),
    });
    return {
      core,
      rest,
      mcp,
      peakRssMb: {
        gateway: d.gateway.peakRssMb(),
        core: d.core.peakRssMb(),
        identity: d.identity.peakRssMb(),
      },
    };
  } finally {
    await d.close();
  }
}

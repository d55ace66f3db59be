import type { Metrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import type { ToolRegistry } from '@svc/tool-server';
import type { BackendAvailability } from './gateway-deps';
import { ListenStreams } from './mcp-listen';
import { DEFAULT_SESSION_LIMITS, type McpSessionLimits, McpSessionStore } from './mcp-sessions';

/** A change identity published (token revoked, org capabilities changed). */
export interface InvalidationEvent {
  kind: string;
  token_id?: string;
  org_id?: string;
}

export interface McpClientsOptions {
  limits: Partial<McpSessionLimits> | undefined;
  registry: ToolRegistry;
  healthMonitor: BackendAvailability;
  metrics: Metrics;
  logger: Logger;
  now: () => number;
}

/**
 * What MCP clients hold of this instance: legacy sessions and modern listen streams, told when
 * their tool list changed (a backend serving registered tools came or went, an org's capabilities
 * changed) and closed when their token is revoked.
 */
export function createMcpClients(options: McpClientsOptions) {
  const { metrics, logger, now } = options;
  const limits = { ...DEFAULT_SESSION_LIMITS, ...options.limits };
  const sessions = new McpSessionStore(limits, now, logger);
  const listen = new ListenStreams(limits, now, logger);
  // Read when the metrics are rendered: each returns to 0 once its clients are gone (a session
  // kept idle is not held: it waits for its client, or expires).
  metrics.holdingOf(
    'gateway_mcp_sessions_in_use',
    'MCP sessions with a request or stream open',
    () => sessions.inUse,
  );
  metrics.holdingOf('gateway_mcp_sessions_opening', 'MCP sessions being initialized', () => sessions.opening);
  metrics.holdingOf('gateway_mcp_listen_streams', 'Open modern MCP listen streams', () => listen.size);
  const toolListChanged = async (orgId?: string) => {
    listen.toolListChanged(orgId);
    await (orgId === undefined ? sessions.broadcastToolListChanged() : sessions.toolListChangedForOrg(orgId));
  };
  const toolBackends = new Set(options.registry.list().map((t) => t.backend as string));
  const unsubscribe = options.healthMonitor.subscribe((name) => {
    // Only a backend that serves registered tools changes what tools/list returns.
    if (toolBackends.has(name)) void toolListChanged();
  });
  return {
    sessions,
    listen,
    /** Listen streams one instance holds: as many as sessions. */
    maxListenStreams: limits.maxSessions,
    toolListChanged,
    async applyInvalidation(event: InvalidationEvent) {
      if (event.kind === 'token' && event.token_id) {
        listen.closeByToken(event.token_id);
        await sessions.closeByToken(event.token_id);
      }
      if (event.kind === 'org' && event.org_id) await toolListChanged(event.org_id);
    },
    /** Unsubscribes from the health monitor and closes every stream and session. */
    async close() {
      unsubscribe();
      listen.closeAll();
      await sessions.closeAll();
    },
  };
}

export type McpClients = ReturnType<typeof createMcpClients>;

import { backendClientMaker, createToolBackends, DEFAULT_TIMEOUT_MS } from '@svc/backend-client';
import { createHttpAuditSink, fetchOrgCapabilities } from '@svc/identity-client';
import { createLogger, type PinoLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { allTools, catalogToolsets, catalogViews, investigationGuides } from '@svc/tool-catalog';
import type { Capability } from '@svc/tool-kit';
import { CursorSeal, ToolExecutor, ToolRegistry, type ToolsetChoice, Toolsets } from '@svc/tool-server';
import { createStdioApp, type StdioApp } from './app';
import type { StdioConfig } from './config';

const CAPABILITY_REFRESH_MS = 60_000;
/** How often recall and copilot are probed; their groups come and go with the answer. */
export const STDIO_HEALTH_INTERVAL_MS = 5_000;
/** How long serving waits for the first probe round at most. */
export const FIRST_PROBE_WAIT_MS = 10_000;

/** `work`, or nothing once `ms` passed (the timer does not keep the process alive). */
async function withinBound(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([work, bound]);
  clearTimeout(timer);
}

export interface WiredStdio {
  app: StdioApp;
  logger: PinoLogger;
  close(): Promise<void>;
}

/**
 * The stdio server's dependencies: the same executor as HTTP, the core for tool calls, identity for
 * the audit trail (transport `stdio`) and, when an org is configured, its capabilities. A failed
 * capability lookup leaves the controlled tools hidden (fail closed) until a refresh succeeds.
 */
export async function wireStdio(
  config: StdioConfig,
  options: { localUser: string; healthIntervalMs?: number; firstProbeWaitMs?: number },
): Promise<WiredStdio> {
  const logger = createLogger({ name: 'stdio-server', level: config.logLevel, destination: 'stderr' });
  const metrics = createNoopMetrics();
  const client = backendClientMaker({ internalSecret: config.internalSecret, metrics, logger });
  const identity = client('identity', config.identityUrl, DEFAULT_TIMEOUT_MS.identity);
  // Like the gateway: recall and copilot tools are registered while their service answers
  // /healthz, and the client is told (tools/list_changed) when they come or go.
  const tools = createToolBackends({
    client,
    coreUrl: config.coreUrl,
    recallUrl: config.recallUrl,
    copilotUrl: config.copilotUrl,
    watchCore: false,
    healthIntervalMs: options.healthIntervalMs ?? STDIO_HEALTH_INTERVAL_MS,
    logger,
  });
  const health = tools.healthMonitor;

  const orgId = config.orgId ?? null;
  let capabilities: ReadonlySet<Capability> = new Set();
  let refreshing: Promise<void> | undefined;
  const refresh = async (): Promise<void> => {
    if (orgId === null) return;
    try {
      capabilities = await fetchOrgCapabilities(identity, orgId, { requestId: 'stdio-capabilities' });
    } catch (err) {
      capabilities = new Set();
      logger.warn({ err, org_id: orgId }, 'capability lookup failed; controlled tools stay hidden');
    }
  };
  await refresh();
  const timer = setInterval(() => {
    refreshing = refresh();
  }, CAPABILITY_REFRESH_MS);
  timer.unref();

  const executor = new ToolExecutor({
    registry: new ToolRegistry(allTools),
    audit: createHttpAuditSink(identity),
    backends: tools.backends,
    isBackendAvailable: (backend) => backend === 'core' || health.isAvailable(backend),
    logger,
    metrics,
    cursors: new CursorSeal(config.internalSecret),
  });
  const app = createStdioApp({
    executor,
    projectId: config.projectId,
    orgId,
    capabilities: () => capabilities,
    localUser: options.localUser,
    views: catalogViews,
    ...(config.toolsets?.length ? { toolsets: stdioToolsets(config.toolsets) } : {}),
    guides: investigationGuides,
    version: '0.1.0',
    logger,
  });
  const connections: { close(): Promise<void> }[] = [];
  health.subscribe(() => void app.notifyToolListChanged());
  health.start();
  // The client's first tools/list should hold every group that will be there: a client asks once
  // at start, and many never act on list_changed. So serving waits for the first probe round, up to
  // a bound (an unreachable backend then stays out, as before, and comes in with list_changed).
  await withinBound(health.probeNow(), options.firstProbeWaitMs ?? FIRST_PROBE_WAIT_MS);
  return {
    app: {
      serve(transport) {
        const handle = app.serve(transport);
        connections.push(handle);
        return handle;
      },
      notifyToolListChanged: () => app.notifyToolListChanged(),
    },
    logger,
    async close() {
      clearInterval(timer);
      health.stop();
      await refreshing;
      await Promise.all(connections.splice(0).map((c) => c.close()));
      identity.close();
      tools.close();
    },
  };
}

/** The toolsets SVC_MCP_TOOLSETS names (checked against the catalog's in config.ts). */
function stdioToolsets(names: string[]): ToolsetChoice | undefined {
  return new Toolsets(catalogToolsets).choose([names.join(',')]);
}

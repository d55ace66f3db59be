import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  type BackendClient,
  type BreakerOptions,
  createBackendClient,
  createHealthMonitor,
  type HealthMonitor,
} from '@svc/backend-client';
import { createHttpAuditSink, createIdentityClient } from '@svc/identity-client';
import { silentLogger } from '@svc/logger';
import { createPromMetrics, type Metrics } from '@svc/metrics';
import type { AnyTool, InvestigationGuide } from '@svc/tool-kit';
import type { McpViews, Toolsets } from '@svc/tool-server';
import { type LogEntry, logsTools } from '@svc/tools-logs';
import { createGatewayApp, type GatewayApp } from '../app';
import type { GatewayAppConfig } from '../gateway-deps';
import {
  closeServer,
  type IdentityContractFixture,
  startIdentityContractFixture,
  urlOf,
} from './identity-contract-fixture';
import { controlledProbe, recallProbe } from './test-tools';
import { startToolBackendFixture, type ToolAnswer, type ToolBackendFixture } from './tool-backend-fixture';

export const SECRET = 'gateway-test-internal-secret-0123';

type StoredLog = LogEntry & { project_id: string };

function log(project: string, minute: number, level: LogEntry['level'], message: string): StoredLog {
  return {
    project_id: project,
    timestamp: new Date(Date.UTC(2025, 0, 1, 12, minute)).toISOString(),
    level,
    message,
    source: 'backend',
    platform: null,
    app_version: null,
    user_id: null,
    session_id: null,
    device_id: null,
    trace_id: null,
    span_id: null,
    event_id: null,
    attributes: {},
  };
}

/** What the core fixture stores; tests derive expected answers from this list themselves. */
export const LOGS: readonly StoredLog[] = [
  log('proj_a', 1, 'INFO', 'a started'),
  log('proj_a', 3, 'ERROR', 'a failed'),
  log('proj_a', 2, 'WARN', 'a slow'),
  log('proj_b', 4, 'ERROR', 'b secret failure'),
];

export interface Harness {
  url: string;
  app: GatewayApp;
  identity: IdentityContractFixture;
  core: ToolBackendFixture;
  recall: ToolBackendFixture;
  monitor: HealthMonitor;
  metrics: Metrics;
  /** Responses of GET /mcp requests, to wait until an SSE stream is really open. */
  getStreams: ServerResponse[];
  close(): Promise<void>;
}

export interface HarnessExtras {
  views?: McpViews;
  /** The toolsets a client may choose and the guides served as prompts (none by default). */
  toolsets?: Toolsets;
  guides?: readonly InvestigationGuide[];
  /** More tools the core fixture serves, and their definitions (test-tools.ts). */
  coreTools?: Record<string, ToolAnswer>;
  tools?: AnyTool[];
  /** Overrides of the test breaker (volume 5, 50%, reset 30 s, window 10 s). */
  breaker?: Partial<BreakerOptions>;
}

export async function startHarness(
  config: Partial<GatewayAppConfig> = {},
  extra: HarnessExtras = {},
): Promise<Harness> {
  const identity = await startIdentityContractFixture(SECRET);
  const core = await startToolBackendFixture(SECRET, {
    ...extra.coreTools,
    'log.recent': (project, input) => {
      const limit = typeof input.limit === 'number' ? input.limit : 20;
      const rows = LOGS.filter((l) => l.project_id === project && (!input.level || l.level === input.level))
        .sort((a, b) => b.timestamp.localeCompare(a.timestamp))
        .map(({ project_id: _p, ...entry }) => entry);
      return { items: rows.slice(0, limit), limit, has_more: rows.length > limit };
    },
    'fixture.controlled': (project) => ({ served_by: 'core', project }),
    'log.search': () => {
      throw new Error('relation "logs_secret" does not exist; password=hunter2');
    },
  });
  const recall = await startToolBackendFixture(SECRET, {
    // `note: "wait:<ms>"` answers that much later: a call still in flight while something happens.
    'fixture.recall': async (project, input) => {
      const wait = /^wait:(\d+)$/.exec(String(input.note ?? ''));
      // Unref'd: a call left waiting (its client gone, the gateway shut down) holds no test run open.
      if (wait) await new Promise((resolve) => setTimeout(resolve, Number(wait[1])).unref());
      return { served_by: 'recall', project };
    },
  });
  const metrics = createPromMetrics({ defaultMetrics: false });
  const clients: BackendClient[] = [];
  const client = (name: string, url: string) => {
    const c = createBackendClient({
      name,
      baseUrl: url,
      internalSecret: SECRET,
      timeoutMs: 2000,
      breaker: {
        volumeThreshold: 5,
        errorThresholdPercentage: 50,
        resetTimeoutMs: 30_000,
        rollingCountTimeoutMs: 10_000,
        ...extra.breaker,
      },
      metrics,
      logger: silentLogger,
    });
    clients.push(c);
    return c;
  };
  const coreClient = client('core', core.url);
  const recallClient = client('recall', recall.url);
  const identityClient = client('identity', identity.url);
  const monitor = createHealthMonitor({
    backends: [
      { name: 'core', client: coreClient, required: true },
      { name: 'identity', client: identityClient, required: true },
      { name: 'recall', client: recallClient, required: false },
      { name: 'copilot', client: undefined, required: false },
    ],
    intervalMs: 60_000,
  });
  await monitor.probeNow();

  const app = createGatewayApp({
    tools: [...logsTools, controlledProbe, recallProbe, ...(extra.tools ?? [])],
    ...(extra.views ? { views: extra.views } : {}),
    ...(extra.toolsets ? { toolsets: extra.toolsets } : {}),
    ...(extra.guides ? { guides: extra.guides } : {}),
    identity: createIdentityClient(identityClient, silentLogger),
    audit: createHttpAuditSink(client('audit', identity.url)),
    backends: { core: coreClient.asToolCaller(), recall: recallClient.asToolCaller() },
    healthMonitor: monitor,
    config: {
      host: '127.0.0.1',
      allowedOrigins: ['https://console.example.com'],
      mcpStateless: false,
      bodyLimit: '1mb',
      limits: {
        perTokenPerMinute: 600,
        perProjectPerMinute: 3000,
        concurrentPerToken: 32,
        concurrentPerProject: 64,
        concurrentPerOrg: 96,
      },
      publicUrl: undefined,
      ...config,
    },
    logger: process.env.HARNESS_LOG
      ? (await import('@svc/logger')).createLogger({ name: 'gw', level: 'debug', destination: 'stderr' })
      : silentLogger,
    metrics,
  });
  const getStreams: ServerResponse[] = [];
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/mcp') getStreams.push(res);
  });
  return {
    url: urlOf(server),
    app,
    identity,
    core,
    recall,
    monitor,
    metrics,
    getStreams,
    async close() {
      await app.shutdown();
      await closeServer(server);
      for (const c of clients) c.close();
      await Promise.all([identity.close(), core.close(), recall.close()]);
    },
  };
}

/** Polls until the condition holds (for effects of background work such as an SSE stream opening). */
export async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

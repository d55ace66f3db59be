import { createServer, type Server } from 'node:http';
import {
  type BackendClient,
  type BreakerOptions,
  createBackendClient,
  createHealthMonitor,
} from '@svc/backend-client';
import { createLogger } from '@svc/logger';
import { createPromMetrics } from '@svc/metrics';
import type { Backends } from '@svc/tool-kit';
import { logTools } from '@svc/tools-logs';
import { createGatewayApp } from './app';
import { createHttpAuditSink } from './audit-sink';
import { loadConfig } from './config';
import { createIdentityClient } from './identity-client';
import { createMetricsApp } from './metrics-app';

// Timeouts: identity answers from an index lookup; core runs analytic queries.
const IDENTITY_TIMEOUT_MS = 2_000;
const CORE_TIMEOUT_MS = 15_000;
const OPTIONAL_TIMEOUT_MS = 15_000;
const HEALTH_INTERVAL_MS = 15_000;
const BREAKER: BreakerOptions = {
  volumeThreshold: 10,
  errorThresholdPercentage: 50,
  resetTimeoutMs: 10_000,
  rollingCountTimeoutMs: 10_000,
};

const config = loadConfig(process.env);
const logger = createLogger({ name: 'http-gateway', level: config.logLevel });
const metrics = createPromMetrics();

const client = (name: string, baseUrl: string, timeoutMs: number): BackendClient =>
  createBackendClient({
    name,
    baseUrl,
    internalSecret: config.internalSecret,
    timeoutMs,
    breaker: BREAKER,
    metrics,
    logger,
  });

const identityClient = client('identity', config.identityUrl, IDENTITY_TIMEOUT_MS);
const auditClient = client('audit', config.identityUrl, IDENTITY_TIMEOUT_MS);
const core = client('core', config.coreUrl, CORE_TIMEOUT_MS);
const recall = config.recallUrl ? client('recall', config.recallUrl, OPTIONAL_TIMEOUT_MS) : undefined;
const copilot = config.copilotUrl ? client('copilot', config.copilotUrl, OPTIONAL_TIMEOUT_MS) : undefined;

const healthMonitor = createHealthMonitor({
  backends: [
    { name: 'core', client: core, required: true },
    { name: 'identity', client: identityClient, required: true },
    { name: 'recall', client: recall, required: false },
    { name: 'copilot', client: copilot, required: false },
  ],
  intervalMs: HEALTH_INTERVAL_MS,
  logger,
});

const backends: Backends = { core: core.asToolCaller() };
if (recall) backends.recall = recall.asToolCaller();
if (copilot) backends.copilot = copilot.asToolCaller();

const app = createGatewayApp({
  tools: logTools,
  identity: createIdentityClient(identityClient, logger),
  audit: createHttpAuditSink(auditClient),
  backends,
  healthMonitor,
  config,
  logger,
  metrics,
});

function listen(server: Server, port: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => {
      logger.info({ host: config.host, port }, `${what} listening`);
      resolve();
    });
  });
}

const gatewayServer = createServer(app);
const metricsServer = createServer(createMetricsApp(metrics, logger));

async function shutdown(signal: string): Promise<void> {
  logger.info({ signal }, 'shutting down');
  healthMonitor.stop();
  await app.shutdown();
  await Promise.all([gatewayServer, metricsServer].map((s) => new Promise((r) => s.close(r))));
  for (const c of [identityClient, auditClient, core, recall, copilot]) c?.close();
  process.exit(0);
}

try {
  await listen(gatewayServer, config.port, 'gateway');
  await listen(metricsServer, config.metricsPort, 'metrics');
  healthMonitor.start();
} catch (err) {
  logger.error({ err }, 'gateway failed to start');
  process.exit(1);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));

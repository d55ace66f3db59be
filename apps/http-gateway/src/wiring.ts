import {
  type BackendClient,
  type BreakerOptions,
  createBackendClient,
  createHealthMonitor,
  type HealthMonitor,
} from '@svc/backend-client';
import { createHttpAuditSink, createIdentityClient } from '@svc/identity-client';
import type { Metrics } from '@svc/metrics';
import { allTools } from '@svc/tool-catalog';
import type { AnyTool, Backends, Logger } from '@svc/tool-kit';
import type { Express } from 'express';
import { createGatewayApp, type GatewayApp } from './app';
import type { GatewayConfig } from './config';
import { createMetricsApp } from './metrics-app';

// Timeouts: identity answers from an index lookup; core runs analytic queries.
const IDENTITY_TIMEOUT_MS = 2_000;
const CORE_TIMEOUT_MS = 15_000;
const OPTIONAL_TIMEOUT_MS = 15_000;
const HEALTH_INTERVAL_MS = 15_000;
export const DEFAULT_BREAKER: BreakerOptions = {
  volumeThreshold: 10,
  errorThresholdPercentage: 50,
  resetTimeoutMs: 10_000,
  rollingCountTimeoutMs: 10_000,
};

export interface WiredGateway {
  app: GatewayApp;
  metricsApp: Express;
  healthMonitor: HealthMonitor;
  /** Stops the monitor, ends MCP sessions, closes pooled sockets. Servers are the caller's. */
  close(): Promise<void>;
}

export interface WireOptions {
  logger: Logger;
  metrics: Metrics;
  tools?: readonly AnyTool[];
  breaker?: BreakerOptions;
  healthIntervalMs?: number;
}

/** Builds the gateway and its backend clients from configuration; used by main.ts and the standalone. */
export function wireGateway(config: GatewayConfig, options: WireOptions): WiredGateway {
  const { logger, metrics } = options;
  const client = (name: string, baseUrl: string, timeoutMs: number): BackendClient =>
    createBackendClient({
      name,
      baseUrl,
      internalSecret: config.internalSecret,
      timeoutMs,
      breaker: options.breaker ?? DEFAULT_BREAKER,
      metrics,
      logger,
    });

  // Introspection and audit have separate breakers: a flood of bad tokens must not trip audit.
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
    intervalMs: options.healthIntervalMs ?? HEALTH_INTERVAL_MS,
    logger,
  });

  const backends: Backends = { core: core.asToolCaller() };
  if (recall) backends.recall = recall.asToolCaller();
  if (copilot) backends.copilot = copilot.asToolCaller();

  const app = createGatewayApp({
    tools: options.tools ?? allTools,
    identity: createIdentityClient(identityClient, logger),
    audit: createHttpAuditSink(auditClient),
    backends,
    healthMonitor,
    config,
    logger,
    metrics,
  });

  return {
    app,
    metricsApp: createMetricsApp(metrics, logger),
    healthMonitor,
    async close() {
      healthMonitor.stop();
      await app.shutdown();
      for (const c of [identityClient, auditClient, core, recall, copilot]) c?.close();
    },
  };
}

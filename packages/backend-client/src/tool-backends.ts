import type { Metrics } from '@svc/metrics';
import type { Tracer } from '@svc/sdk-core';
import type { Backends, Logger } from '@svc/tool-kit';
import { type BackendClient, createBackendClient, DEFAULT_TIMEOUT_MS } from './backend-client';
import type { BreakerOptions } from './breaker-options';
import { createHealthMonitor, type HealthMonitor, type MonitoredBackend } from './health-monitor';

/** Makes one backend's client: the same secret, metrics, logger, tracer and breaker for each. */
export type BackendClientMaker = (name: string, baseUrl: string, timeoutMs: number) => BackendClient;

export function backendClientMaker(options: {
  internalSecret: string;
  metrics: Metrics;
  logger: Logger;
  tracer?: Tracer;
  breaker?: BreakerOptions;
}): BackendClientMaker {
  return (name, baseUrl, timeoutMs) =>
    createBackendClient({
      name,
      baseUrl,
      internalSecret: options.internalSecret,
      timeoutMs,
      ...(options.breaker ? { breaker: options.breaker } : {}),
      metrics: options.metrics,
      logger: options.logger,
      ...(options.tracer ? { tracer: options.tracer } : {}),
    });
}

export interface ToolBackendsOptions {
  client: BackendClientMaker;
  coreUrl: string;
  /** Absent: recall is not deployed (its tools never listed). */
  recallUrl?: string | undefined;
  /** Absent: copilot is not deployed. */
  copilotUrl?: string | undefined;
  /**
   * What the health monitor watches before recall and copilot: the gateway, the core and identity
   * (required: reported in /healthz); the stdio server neither (the core is called regardless).
   */
  watchCore: boolean;
  alsoWatched?: MonitoredBackend[];
  healthIntervalMs: number;
  logger: Logger;
}

export interface ToolBackends {
  core: BackendClient;
  recall: BackendClient | undefined;
  copilot: BackendClient | undefined;
  /** The tool callers handlers reach through ToolContext.backend(). */
  backends: Backends;
  /** Recall's and copilot's tools are listed while their service answers /healthz. */
  healthMonitor: HealthMonitor;
  /** Closes the three clients (the monitor is stopped by its owner). */
  close(): void;
}

/**
 * The backends tools are served by (core, recall, copilot when deployed), their tool callers and
 * the health monitor that decides which optional groups are listed: one way for every serving
 * entry (the HTTP gateway, the stdio server).
 */
export function createToolBackends(options: ToolBackendsOptions): ToolBackends {
  const { client } = options;
  const core = client('core', options.coreUrl, DEFAULT_TIMEOUT_MS.core);
  const recall = options.recallUrl
    ? client('recall', options.recallUrl, DEFAULT_TIMEOUT_MS.recall)
    : undefined;
  const copilot = options.copilotUrl
    ? client('copilot', options.copilotUrl, DEFAULT_TIMEOUT_MS.copilot)
    : undefined;
  const healthMonitor = createHealthMonitor({
    backends: [
      ...(options.watchCore ? [{ name: 'core', client: core, required: true }] : []),
      ...(options.alsoWatched ?? []),
      { name: 'recall', client: recall, required: false },
      { name: 'copilot', client: copilot, required: false },
    ],
    intervalMs: options.healthIntervalMs,
    logger: options.logger,
  });
  const backends: Backends = { core: core.asToolCaller() };
  if (recall) backends.recall = recall.asToolCaller();
  if (copilot) backends.copilot = copilot.asToolCaller();
  return {
    core,
    recall,
    copilot,
    backends,
    healthMonitor,
    close() {
      for (const c of [core, recall, copilot]) c?.close();
    },
  };
}

import { loadConsoleConfig, wireConsole } from '@svc/console';
import { loadCopilotConfig, wireCopilot } from '@svc/copilot';
import { createMetricsApp, loadGatewayConfig, wireGateway } from '@svc/http-gateway';
import { loadIdentityConfig, wireIdentity } from '@svc/identity';
import type { PinoLogger } from '@svc/logger';
import {
  createPromMetrics,
  type LoopHoldMonitor,
  type Metrics,
  mergedExposition,
  metricsPrefix,
  monitorLoopHolds,
} from '@svc/metrics';
import { loadCoreConfig, wireCore } from '@svc/observability-core';
import { loadRecallConfig, wireRecall } from '@svc/recall';
import type { Tracer } from '@svc/self-trace';
import type { StandaloneConfig } from './config';
import { listen } from './listen';

export type GroupState = 'live' | 'down' | 'not deployed';

/** Where each service of the stack answers (also in the banner and the ready file). */
export interface StackUrls {
  gateway: string;
  mcp: string;
  core: string;
  identity: string;
  recall: string;
  copilot: string;
  metrics: string;
  /** The web console (sign in, MCP tokens, traces, recall, audit, tool runner). */
  console: string;
}

export interface RunningStack {
  urls: StackUrls;
  /** The tool groups of optional services: live (registered), down, or not deployed. */
  groups(): Record<string, GroupState>;
  /**
   * Called once the stack serves (after the demo seeding, whose bulk work is not a request): from
   * then on every event-loop hold of 50 ms or more is logged and counted on the metrics port.
   */
  serving(): void;
  close(): Promise<void>;
}

/**
 * Every service in this process, each on its own port and store, talking to the others over
 * real HTTP exactly as when deployed separately. Each service parses its own configuration from
 * the same environment. Close order is the reverse of start order.
 */
export async function startStack(config: StandaloneConfig, logger: PinoLogger): Promise<RunningStack> {
  const closers: (() => Promise<void>)[] = [];
  // Self-tracing: every service's last spans are sent while the core still listens.
  const tracers: (Tracer | undefined)[] = [];
  const close = async () => {
    await Promise.all(tracers.map((t) => t?.exporter.flush()));
    for (const fn of closers.reverse()) await fn().catch((err) => logger.error({ err }, 'close failed'));
  };
  // Every service's registry, shown together on the metrics port: in one process, one scrape
  // sees every holding gauge of the stack (the check after faults reads them all there).
  const registries: Metrics[] = [];
  const registry = (metrics: Metrics) => {
    registries.push(metrics);
    return metrics;
  };
  try {
    const identityConfig = loadIdentityConfig(config.serviceEnv);
    const coreConfig = loadCoreConfig(config.serviceEnv);
    const recallConfig = loadRecallConfig(config.serviceEnv);
    const copilotConfig = loadCopilotConfig(config.serviceEnv);
    const gatewayConfig = loadGatewayConfig({
      ...config.serviceEnv,
      SVC_MCP_HTTP_PORT: String(config.gatewayPort),
    });

    const identity = await wireIdentity(identityConfig, {
      logger: logger.child({ service: 'identity' }),
      metrics: registry(createPromMetrics({ prefix: metricsPrefix('identity') })),
    });
    closers.push(identity.close);
    tracers.push(identity.tracer);
    const identityServer = await listen('identity', identity.app, identityConfig.host, identityConfig.port);
    closers.push(identityServer.close);

    const core = await wireCore(coreConfig, {
      logger: logger.child({ service: 'core' }),
      metrics: registry(createPromMetrics({ prefix: metricsPrefix('core') })),
    });
    closers.push(core.close);
    tracers.push(core.tracer);
    const coreServer = await listen('observability-core', core.app, coreConfig.host, coreConfig.port);
    closers.push(coreServer.close);

    const recall = await wireRecall(recallConfig, {
      logger: logger.child({ service: 'recall' }),
      metrics: registry(createPromMetrics({ prefix: metricsPrefix('recall') })),
    });
    closers.push(recall.close);
    tracers.push(recall.tracer);
    const recallServer = await listen('recall', recall.app, recallConfig.host, recallConfig.port);
    closers.push(recallServer.close);

    const copilot = wireCopilot(copilotConfig, {
      logger: logger.child({ service: 'copilot' }),
      metrics: registry(createPromMetrics({ prefix: metricsPrefix('copilot') })),
    });
    closers.push(copilot.close);
    tracers.push(copilot.tracer);
    const copilotServer = await listen('copilot', copilot.app, copilotConfig.host, copilotConfig.port);
    closers.push(copilotServer.close);

    // The gateway's registry (the metrics port) also carries the process's event-loop holds: every
    // service shares this one loop, and a request that holds it stalls all of them.
    const gatewayMetrics = registry(createPromMetrics({ prefix: metricsPrefix('gateway') }));
    let loopHolds: LoopHoldMonitor | undefined;
    closers.push(async () => loopHolds?.stop());
    const wired = wireGateway(gatewayConfig, {
      logger: logger.child({ service: 'gateway' }),
      metrics: gatewayMetrics,
    });
    closers.push(() => wired.close());
    tracers.push(wired.tracer);
    const gateway = await listen('gateway', wired.app, gatewayConfig.host, gatewayConfig.port);
    closers.push(gateway.close);
    const metricsApp = createMetricsApp(mergedExposition(registries), logger.child({ service: 'metrics' }));
    const metrics = await listen('metrics', metricsApp, gatewayConfig.host, gatewayConfig.metricsPort);
    closers.push(metrics.close);
    // The web console: its tool calls go through this gateway like any client's.
    const consoleConfig = loadConsoleConfig({
      ...config.serviceEnv,
      SVC_GATEWAY_URL: `http://localhost:${gateway.port}`,
      SVC_PUBLIC_URL: config.serviceEnv.SVC_PUBLIC_URL || `http://localhost:${gateway.port}`,
    });
    const consoleApp = wireConsole(consoleConfig, { logger: logger.child({ service: 'console' }) });
    const consoleServer = await listen('console', consoleApp, consoleConfig.host, consoleConfig.port);
    closers.push(consoleServer.close);
    wired.healthMonitor.start();
    // The banner and the ready file tell which groups are live: wait for the first probe.
    await wired.healthMonitor.probeNow();

    const base = (port: number) => `http://localhost:${port}`;
    return {
      urls: {
        gateway: base(gateway.port),
        mcp: `${base(gateway.port)}/mcp`,
        core: base(coreServer.port),
        identity: base(identityServer.port),
        recall: base(recallServer.port),
        copilot: base(copilotServer.port),
        metrics: `${base(metrics.port)}/metrics`,
        console: base(consoleServer.port),
      },
      groups: () => {
        const health = wired.healthMonitor.snapshot();
        const state = (backend: string): GroupState =>
          !health[backend]?.deployed ? 'not deployed' : health[backend]?.available ? 'live' : 'down';
        return { recall: state('recall'), verify: state('copilot') };
      },
      serving() {
        loopHolds ??= monitorLoopHolds({ metrics: gatewayMetrics, logger });
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

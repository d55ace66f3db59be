import { loadGatewayConfig, wireGateway } from '@svc/http-gateway';
import { loadIdentityConfig, wireIdentity } from '@svc/identity';
import type { PinoLogger } from '@svc/logger';
import { createPromMetrics } from '@svc/metrics';
import { loadCoreConfig, wireCore } from '@svc/observability-core';
import type { StandaloneConfig } from './config';
import { listen } from './listen';

export interface RunningStack {
  urls: { gateway: string; mcp: string; core: string; identity: string; metrics: string };
  close(): Promise<void>;
}

/**
 * Every service in this process, each on its own port and store, talking to the others over
 * real HTTP exactly as when deployed separately. Each service parses its own configuration from
 * the same environment. Close order is the reverse of start order.
 */
export async function startStack(config: StandaloneConfig, logger: PinoLogger): Promise<RunningStack> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const fn of closers.reverse()) await fn().catch((err) => logger.error({ err }, 'close failed'));
  };
  try {
    const identityConfig = loadIdentityConfig(config.serviceEnv);
    const coreConfig = loadCoreConfig(config.serviceEnv);
    const gatewayConfig = loadGatewayConfig({
      ...config.serviceEnv,
      SVC_MCP_HTTP_PORT: String(config.gatewayPort),
    });

    const identity = await wireIdentity(identityConfig, {
      logger: logger.child({ service: 'identity' }),
      metrics: createPromMetrics({ prefix: 'svc_identity_' }),
    });
    closers.push(identity.close);
    const identityServer = await listen('identity', identity.app, identityConfig.host, identityConfig.port);
    closers.push(identityServer.close);

    const core = await wireCore(coreConfig, {
      logger: logger.child({ service: 'core' }),
      metrics: createPromMetrics({ prefix: 'svc_core_' }),
    });
    closers.push(core.close);
    const coreServer = await listen('observability-core', core.app, coreConfig.host, coreConfig.port);
    closers.push(coreServer.close);

    const wired = wireGateway(gatewayConfig, {
      logger: logger.child({ service: 'gateway' }),
      metrics: createPromMetrics(),
    });
    closers.push(() => wired.close());
    const gateway = await listen('gateway', wired.app, gatewayConfig.host, gatewayConfig.port);
    closers.push(gateway.close);
    const metrics = await listen('metrics', wired.metricsApp, gatewayConfig.host, gatewayConfig.metricsPort);
    closers.push(metrics.close);
    wired.healthMonitor.start();

    const base = (port: number) => `http://localhost:${port}`;
    return {
      urls: {
        gateway: base(gateway.port),
        mcp: `${base(gateway.port)}/mcp`,
        core: base(coreServer.port),
        identity: base(identityServer.port),
        metrics: `${base(metrics.port)}/metrics`,
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

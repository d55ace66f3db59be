import { loadConfig as loadGatewayConfig, wireGateway } from '@svc/http-gateway';
import { createIdentityApp, loadIdentityConfig, migrateIdentity } from '@svc/identity';
import type { PinoLogger } from '@svc/logger';
import { createPromMetrics } from '@svc/metrics';
import {
  createCoreApp,
  createDebugFileStore,
  createHttpIngestKeyResolver,
  createSymbolicator,
  loadConfig as loadCoreConfig,
  migrateCore,
  openStorage,
  startSymbolicationWorker,
} from '@svc/observability-core';
import { createPostgres } from '@svc/postgres';
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

    const db = await createPostgres(identityConfig.database);
    closers.push(() => db.close());
    await migrateIdentity(db);
    const identity = await listen(
      'identity',
      createIdentityApp({
        db,
        internalSecret: config.internalSecret,
        logger: logger.child({ service: 'identity' }),
        metrics: createPromMetrics({ prefix: 'svc_identity_' }),
        ingestEndpoint: config.serviceEnv.SVC_OBSERVABILITY_ENDPOINT,
      }),
      identityConfig.host,
      identityConfig.port,
    );
    closers.push(identity.close);

    const ch = await openStorage(coreConfig.storage);
    closers.push(() => ch.close());
    await migrateCore(ch, coreConfig.retention);
    const coreLogger = logger.child({ service: 'core' });
    const debugFiles = createDebugFileStore(coreConfig.debugFilesDir);
    const symbolicator = createSymbolicator({ ch, files: debugFiles, logger: coreLogger });
    const worker = startSymbolicationWorker({ ch, files: debugFiles, logger: coreLogger, symbolicator });
    closers.push(() => worker.stop());
    const core = await listen(
      'observability-core',
      createCoreApp({
        ch,
        ingestKeys: createHttpIngestKeyResolver({
          identityUrl: coreConfig.identityUrl,
          internalSecret: config.internalSecret,
        }),
        internalSecret: config.internalSecret,
        logger: coreLogger,
        metrics: createPromMetrics({ prefix: 'svc_core_' }),
        retention: coreConfig.retention,
        debugFiles,
        symbolicator,
      }),
      coreConfig.host,
      coreConfig.port,
    );
    closers.push(core.close);

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
        core: base(core.port),
        identity: base(identity.port),
        metrics: `${base(metrics.port)}/metrics`,
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

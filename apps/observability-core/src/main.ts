import { runService } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createNoopMetrics, monitorLoopHolds } from '@svc/metrics';
import { traceFields } from '@svc/self-trace';
import { loadCoreConfig } from './config';
import { wireCore } from './wiring';

await runService({
  name: 'observability-core',
  load: loadCoreConfig,
  async wire(config) {
    const logger = createLogger({
      name: 'observability-core',
      level: config.logLevel,
      // Self-tracing: a line written while serving a request names its trace and span.
      ...(config.selfTrace ? { mixin: traceFields } : {}),
    });
    // Started alone, this service serves no /metrics: it counts nothing (the one-process stack
    // counts every service's metrics and serves them on the gateway's metrics port).
    const metrics = createNoopMetrics();
    const core = await wireCore(config, { logger, metrics });
    return {
      logger,
      listeners: [
        {
          what: 'observability-core',
          app: core.app,
          host: config.host,
          port: config.port,
          fields: { storage: config.storage.kind },
        },
      ],
      // Holds of the event loop past 50 ms (main-thread CPU) are logged: one request's work should
      // never keep the others waiting.
      started: () => monitorLoopHolds({ metrics, logger }),
      // The core's own last spans go to itself: sent while it still listens.
      drain: () => core.tracer?.shutdown() ?? Promise.resolve(),
      close: () => core.close(),
    };
  },
});

import { runService } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createNoopMetrics, monitorLoopHolds } from '@svc/metrics';
import { traceFields } from '@svc/self-trace';
import { loadIdentityConfig } from './config';
import { wireIdentity } from './wiring';

await runService({
  name: 'identity',
  load: loadIdentityConfig,
  async wire(config) {
    const logger = createLogger({
      name: 'identity',
      level: config.logLevel,
      // Self-tracing: a line written while serving a request names its trace and span.
      ...(config.selfTrace ? { mixin: traceFields } : {}),
    });
    // Started alone, this service serves no /metrics: it counts nothing (the one-process stack
    // counts every service's metrics and serves them on the gateway's metrics port).
    const metrics = createNoopMetrics();
    const identity = await wireIdentity(config, { logger, metrics });
    return {
      logger,
      listeners: [
        {
          what: 'identity',
          app: identity.app,
          host: config.host,
          port: config.port,
          fields: { store: identity.db.kind },
        },
      ],
      // Holds of the event loop past 50 ms (main-thread CPU) are logged: one request's work should
      // never keep the others waiting.
      started: () => monitorLoopHolds({ metrics, logger }),
      // Open invalidation streams would keep the server from closing.
      drain: () => identity.invalidations.close(),
      close: () => identity.close(),
    };
  },
});

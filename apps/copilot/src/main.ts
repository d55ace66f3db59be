import { runService } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createNoopMetrics, monitorLoopHolds } from '@svc/metrics';
import { traceFields } from '@svc/self-trace';
import { loadCopilotConfig } from './config';
import { wireCopilot } from './wiring';

await runService({
  name: 'copilot',
  load: loadCopilotConfig,
  wire(config) {
    const logger = createLogger({
      name: 'copilot',
      level: config.logLevel,
      // Self-tracing: a line written while serving a request names its trace and span.
      ...(config.selfTrace ? { mixin: traceFields } : {}),
    });
    // Started alone, this service serves no /metrics: it counts nothing (the one-process stack
    // counts every service's metrics and serves them on the gateway's metrics port).
    const metrics = createNoopMetrics();
    const copilot = wireCopilot(config, { logger, metrics });
    return {
      logger,
      listeners: [
        {
          what: 'copilot',
          app: copilot.app,
          host: config.host,
          port: config.port,
          fields: { core: config.coreUrl, llm: config.llm ? config.llm.model : null },
        },
      ],
      // Holds of the event loop past 50 ms (main-thread CPU) are logged: one request's work should
      // never keep the others waiting.
      started: () => monitorLoopHolds({ metrics, logger }),
      close: () => copilot.close(),
    };
  },
});

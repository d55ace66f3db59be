import { runService } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createPromMetrics, metricsPrefix, monitorLoopHolds } from '@svc/metrics';
import { traceFields } from '@svc/self-trace';
import { loadGatewayConfig } from './config';
import { wireGateway } from './wiring';

await runService({
  name: 'http-gateway',
  load: loadGatewayConfig,
  wire(config) {
    const logger = createLogger({
      name: 'http-gateway',
      level: config.logLevel,
      // Self-tracing: a line written while serving a request names its trace and span.
      ...(config.selfTrace ? { mixin: traceFields } : {}),
    });
    const metrics = createPromMetrics({ prefix: metricsPrefix('gateway') });
    const gateway = wireGateway(config, { logger, metrics });
    return {
      logger,
      listeners: [
        { what: 'gateway', app: gateway.app, host: config.host, port: config.port },
        { what: 'metrics', app: gateway.metricsApp, host: config.host, port: config.metricsPort },
      ],
      started: () => {
        gateway.healthMonitor.start();
        // Holds of the event loop past 50 ms (main-thread CPU) are logged and counted: one request's
        // work should never keep the others waiting.
        monitorLoopHolds({ metrics, logger });
      },
      // Open MCP sessions and streams end first: they would keep the servers from closing.
      drain: () => gateway.close(),
    };
  },
});

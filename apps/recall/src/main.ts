import { runService } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createPromMetrics, monitorLoopHolds } from '@svc/metrics';
import { traceFields } from '@svc/self-trace';
import { loadRecallConfig } from './config';
import { wireRecall } from './wiring';

await runService({
  name: 'recall',
  load: loadRecallConfig,
  async wire(config) {
    const logger = createLogger({
      name: 'recall',
      level: config.logLevel,
      // Self-tracing: a line written while serving a request names its trace and span.
      ...(config.selfTrace ? { mixin: traceFields } : {}),
    });
    const metrics = createPromMetrics({ prefix: 'svc_recall_' });
    const recall = await wireRecall(config, { logger, metrics });
    return {
      logger,
      listeners: [
        {
          what: 'recall',
          app: recall.app,
          host: config.host,
          port: config.port,
          fields: { store: recall.db.kind },
        },
      ],
      // Holds of the event loop past 50 ms (main-thread CPU) are logged and counted: one request's
      // work should never keep the others waiting.
      started: () => monitorLoopHolds({ metrics, logger }),
      close: () => recall.close(),
    };
  },
});

import { ConfigError, withServerTimeouts } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createPromMetrics, monitorLoopHolds } from '@svc/metrics';
import { traceFields } from '@svc/self-trace';
import { loadRecallConfig } from './config';
import { wireRecall } from './wiring';

async function main(): Promise<void> {
  const config = loadRecallConfig(process.env);
  const logger = createLogger({
    name: 'recall',
    level: config.logLevel,
    // Self-tracing: a line written while serving a request names its trace and span.
    ...(config.selfTrace ? { mixin: traceFields } : {}),
  });
  const metrics = createPromMetrics({ prefix: 'svc_recall_' });
  const recall = await wireRecall(config, { logger, metrics });
  const server = withServerTimeouts(
    recall.app.listen(config.port, config.host, () => {
      logger.info({ port: config.port, host: config.host, store: recall.db.kind }, 'recall listening');
    }),
  );
  // Holds of the event loop past 50 ms (main-thread CPU) are logged and counted: one request's work
  // should never keep the others waiting.
  monitorLoopHolds({ metrics, logger });
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    server.close(() => {
      void recall.close().finally(() => process.exit(0));
    });
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});

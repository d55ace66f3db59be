import { ConfigError, withServerTimeouts } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createPromMetrics, monitorLoopHolds } from '@svc/metrics';
import { traceFields } from '@svc/self-trace';
import { loadCopilotConfig } from './config';
import { wireCopilot } from './wiring';

function main(): void {
  const config = loadCopilotConfig(process.env);
  const logger = createLogger({
    name: 'copilot',
    level: config.logLevel,
    // Self-tracing: a line written while serving a request names its trace and span.
    ...(config.selfTrace ? { mixin: traceFields } : {}),
  });
  const metrics = createPromMetrics({ prefix: 'svc_copilot_' });
  const copilot = wireCopilot(config, { logger, metrics });
  const server = withServerTimeouts(
    copilot.app.listen(config.port, config.host, () => {
      logger.info(
        {
          port: config.port,
          host: config.host,
          core: config.coreUrl,
          llm: config.llm ? config.llm.model : null,
        },
        'copilot listening',
      );
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
      void copilot.close().finally(() => process.exit(0));
    });
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

try {
  main();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
}

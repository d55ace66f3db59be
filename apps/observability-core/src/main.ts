import { createServer } from 'node:http';
import { withServerTimeouts } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createPromMetrics, monitorLoopHolds } from '@svc/metrics';
import { traceFields } from '@svc/self-trace';
import { loadCoreConfig } from './config';
import { wireCore } from './wiring';

const config = loadCoreConfig(process.env);
const logger = createLogger({
  name: 'observability-core',
  level: config.logLevel,
  // Self-tracing: a line written while serving a request names its trace and span.
  ...(config.selfTrace ? { mixin: traceFields } : {}),
});

try {
  const metrics = createPromMetrics();
  const core = await wireCore(config, { logger, metrics });
  const server = withServerTimeouts(createServer(core.app));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  logger.info(
    { host: config.host, port: config.port, storage: config.storage.kind },
    'observability-core listening',
  );
  // Holds of the event loop past 50 ms (main-thread CPU) are logged and counted: one request's work
  // should never keep the others waiting.
  monitorLoopHolds({ metrics, logger });
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // The core's own last spans go to itself: sent while it still listens.
    void (core.tracer?.shutdown() ?? Promise.resolve()).finally(() =>
      server.close(() => {
        void core.close().finally(() => process.exit(0));
      }),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
} catch (err) {
  logger.error({ err }, 'observability-core failed to start');
  process.exit(1);
}

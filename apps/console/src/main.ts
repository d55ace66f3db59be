import { ConfigError, withServerTimeouts } from '@svc/config';
import { createLogger } from '@svc/logger';
import { monitorLoopHolds } from '@svc/metrics';
import { loadConsoleConfig } from './config';
import { wireConsole } from './wiring';

function main(): void {
  const config = loadConsoleConfig(process.env);
  const logger = createLogger({ name: 'console', level: config.logLevel });
  const app = wireConsole(config, { logger });
  const server = withServerTimeouts(
    app.listen(config.port, config.host, () => {
      logger.info({ port: config.port, host: config.host, url: config.publicUrl }, 'console listening');
    }),
  );
  // Holds of the event loop past 50 ms (main-thread CPU) are logged: one request's work should
  // never keep the others waiting.
  monitorLoopHolds({ logger });
  const shutdown = () => server.close(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

try {
  main();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
}

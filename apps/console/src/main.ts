import { runService } from '@svc/config';
import { createLogger } from '@svc/logger';
import { monitorLoopHolds } from '@svc/metrics';
import { loadConsoleConfig } from './config';
import { wireConsole } from './wiring';

await runService({
  name: 'console',
  load: loadConsoleConfig,
  wire(config) {
    const logger = createLogger({ name: 'console', level: config.logLevel });
    const app = wireConsole(config, { logger });
    return {
      logger,
      listeners: [
        { what: 'console', app, host: config.host, port: config.port, fields: { url: config.publicUrl } },
      ],
      // Holds of the event loop past 50 ms (main-thread CPU) are logged: one request's work should
      // never keep the others waiting.
      started: () => monitorLoopHolds({ logger }),
    };
  },
});

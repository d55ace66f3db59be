import { createServer, type Server } from 'node:http';
import { withServerTimeouts } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createPromMetrics, monitorLoopHolds } from '@svc/metrics';
import { traceFields } from '@svc/self-trace';
import { loadGatewayConfig } from './config';
import { wireGateway } from './wiring';

const config = loadGatewayConfig(process.env);
const logger = createLogger({
  name: 'http-gateway',
  level: config.logLevel,
  // Self-tracing: a line written while serving a request names its trace and span.
  ...(config.selfTrace ? { mixin: traceFields } : {}),
});
const metrics = createPromMetrics();
const gateway = wireGateway(config, { logger, metrics });

function listen(server: Server, port: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => {
      logger.info({ host: config.host, port }, `${what} listening`);
      resolve();
    });
  });
}

const gatewayServer = withServerTimeouts(createServer(gateway.app));
const metricsServer = withServerTimeouts(createServer(gateway.metricsApp));

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  await gateway.close();
  await Promise.all([gatewayServer, metricsServer].map((s) => new Promise((r) => s.close(r))));
  process.exit(0);
}

try {
  await listen(gatewayServer, config.port, 'gateway');
  await listen(metricsServer, config.metricsPort, 'metrics');
  gateway.healthMonitor.start();
  // Holds of the event loop past 50 ms (main-thread CPU) are logged and counted: one request's work
  // should never keep the others waiting.
  monitorLoopHolds({ metrics, logger });
} catch (err) {
  logger.error({ err }, 'gateway failed to start');
  process.exit(1);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

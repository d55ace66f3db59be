import { ConfigError, withServerTimeouts } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createPromMetrics, monitorLoopHolds } from '@svc/metrics';
import { traceFields } from '@svc/self-trace';
import { loadIdentityConfig } from './config';
import { wireIdentity } from './wiring';

async function main(): Promise<void> {
  const config = loadIdentityConfig(process.env);
  const logger = createLogger({
    name: 'identity',
    level: config.logLevel,
    // Self-tracing: a line written while serving a request names its trace and span.
    ...(config.selfTrace ? { mixin: traceFields } : {}),
  });
  const metrics = createPromMetrics({ prefix: 'svc_identity_' });
  const identity = await wireIdentity(config, { logger, metrics });
  const server = withServerTimeouts(
    identity.app.listen(config.port, config.host, () => {
      logger.info({ port: config.port, host: config.host, store: identity.db.kind }, 'identity listening');
    }),
  );
  // Holds of the event loop past 50 ms (main-thread CPU) are logged and counted: one request's work
  // should never keep the others waiting.
  monitorLoopHolds({ metrics, logger });
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    void identity.invalidations.close().then(() =>
      server.close(() => {
        void identity.close().finally(() => process.exit(0));
      }),
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});

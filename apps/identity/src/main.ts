import { ConfigError } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createPromMetrics } from '@svc/metrics';
import { createPostgres } from '@svc/postgres';
import { createIdentityApp } from './app';
import { loadIdentityConfig } from './config';
import { migrateIdentity } from './migrations';

async function main(): Promise<void> {
  const config = loadIdentityConfig(process.env);
  const logger = createLogger({ name: 'identity', level: config.logLevel });
  const db = await createPostgres(config.database);
  const applied = await migrateIdentity(db);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  const app = createIdentityApp({
    db,
    internalSecret: config.internalSecret,
    logger,
    metrics: createPromMetrics({ prefix: 'svc_identity_' }),
    ingestEndpoint: config.ingestEndpoint,
  });
  const server = app.listen(config.port, config.host, () => {
    logger.info({ port: config.port, host: config.host, store: db.kind }, 'identity listening');
  });
  const shutdown = () => {
    server.close(() => {
      void db.close().finally(() => process.exit(0));
    });
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});

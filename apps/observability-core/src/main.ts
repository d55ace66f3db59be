import { createServer } from 'node:http';
import { createLogger } from '@svc/logger';
import { createPromMetrics } from '@svc/metrics';
import { createCoreApp } from './app';
import { loadConfig } from './config';
import { createHttpIngestKeyResolver } from './ingest/key-resolver';
import { migrateCore } from './storage/migrate';
import { openStorage } from './storage/open';
import { createDebugFileStore } from './symbolication/debug-file-store';
import { createSymbolicator } from './symbolication/symbolicator';
import { startSymbolicationWorker } from './symbolication/worker';

const config = loadConfig(process.env);
const logger = createLogger({ name: 'observability-core', level: config.logLevel });

try {
  const ch = await openStorage(config.storage);
  await migrateCore(ch, config.retention);
  const debugFiles = createDebugFileStore(config.debugFilesDir);
  const symbolicator = createSymbolicator({ ch, files: debugFiles, logger });
  const worker = startSymbolicationWorker({ ch, files: debugFiles, logger, symbolicator });
  const app = createCoreApp({
    ch,
    ingestKeys: createHttpIngestKeyResolver({
      identityUrl: config.identityUrl,
      internalSecret: config.internalSecret,
    }),
    internalSecret: config.internalSecret,
    logger,
    metrics: createPromMetrics(),
    retention: config.retention,
    debugFiles,
    symbolicator,
  });
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  logger.info(
    { host: config.host, port: config.port, storage: config.storage.kind },
    'observability-core listening',
  );
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close(() => {
      void worker
        .stop()
        .then(() => ch.close())
        .finally(() => process.exit(0));
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
} catch (err) {
  logger.error({ err }, 'observability-core failed to start');
  process.exit(1);
}

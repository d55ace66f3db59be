import type { ClickHouse } from '@svc/clickhouse';
import { createHttpIngestKeyResolver } from '@svc/ingest-auth';
import type { Metrics } from '@svc/metrics';
import { createSelfTracer, type Tracer } from '@svc/self-trace';
import type { Logger } from '@svc/tool-kit';
import type { Express } from 'express';
import { createCoreApp } from './app';
import type { CoreConfig } from './config';
import { migrateCore } from './storage/migrate';
import { openStorage } from './storage/open';
import { createDebugFileStore } from './symbolication/debug-file-store';
import { createSymbolicator } from './symbolication/symbolicator';
import { startSymbolicationWorker } from './symbolication/worker';

export interface WiredCore {
  app: Express;
  ch: ClickHouse;
  /**
   * Self-tracing's tracer, when SVC_SELF_TRACE_PROJECT is set. The core sends its spans to itself:
   * shut it down (a last flush) before closing the HTTP server.
   */
  tracer: Tracer | undefined;
  /** Stops the symbolication worker, then closes the store. The HTTP server is the caller's. */
  close(): Promise<void>;
}

/**
 * The core from its configuration: storage opened and migrated, the debug-file store, one
 * symbolicator shared by ingest and the background worker, and the app. Used by main.ts and the
 * standalone, so both start the same way.
 */
export async function wireCore(
  config: CoreConfig,
  deps: { logger: Logger; metrics: Metrics },
): Promise<WiredCore> {
  const { logger, metrics } = deps;
  const ch = await openStorage(config.storage, config.queries.concurrency);
  try {
    await migrateCore(ch, config.retention);
  } catch (err) {
    await ch.close();
    throw err;
  }
  const debugFiles = createDebugFileStore(config.debugFilesDir);
  const symbolicator = createSymbolicator({ ch, files: debugFiles, logger });
  const worker = startSymbolicationWorker({ ch, files: debugFiles, logger, symbolicator });
  const tracer = createSelfTracer({
    service: 'observability-core',
    internalSecret: config.internalSecret,
    logger,
    ...config.selfTrace,
  });
  const app = createCoreApp({
    ch,
    ingestKeys: createHttpIngestKeyResolver({
      identityUrl: config.identityUrl,
      internalSecret: config.internalSecret,
    }),
    internalSecret: config.internalSecret,
    logger,
    metrics,
    retention: config.retention,
    debugFiles,
    symbolicator,
    queries: config.queries,
    ...(tracer ? { tracer } : {}),
  });
  return {
    app,
    ch,
    tracer,
    async close() {
      await tracer?.shutdown();
      await worker.stop();
      await ch.close();
    },
  };
}

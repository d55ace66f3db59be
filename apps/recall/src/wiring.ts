import { createHttpIngestKeyResolver } from '@svc/ingest-auth';
import type { Metrics } from '@svc/metrics';
import { createPostgres, type Postgres } from '@svc/postgres';
import { createSelfTracer, type Tracer } from '@svc/self-trace';
import type { Logger } from '@svc/tool-kit';
import type { Express } from 'express';
import { createRecallApp } from './app';
import type { RecallConfig } from './config';
import { createIdentityConsoleSessions } from './console-sessions';
import { createFileStore } from './file-store';
import { createKeyStore } from './keys';
import { migrateRecall } from './store/migrations';

export interface WiredRecall {
  app: Express;
  db: Postgres;
  /** Self-tracing's tracer, when SVC_SELF_TRACE_PROJECT is set (shut down by close()). */
  tracer: Tracer | undefined;
  close(): Promise<void>;
}

/** Opens the store, migrates, and builds the app from the config. */
export async function wireRecall(
  config: RecallConfig,
  deps: { logger: Logger; metrics: Metrics; clock?: () => Date },
): Promise<WiredRecall> {
  const db = await createPostgres(config.database);
  await migrateRecall(db);
  const clock = deps.clock ?? (() => new Date());
  const tracer = createSelfTracer({
    service: 'recall',
    internalSecret: config.internalSecret,
    logger: deps.logger,
    ...config.selfTrace,
  });
  const app = createRecallApp({
    db,
    files: createFileStore(config.filesDir),
    keys: createKeyStore(db, config.masterKey, clock),
    logger: deps.logger,
    metrics: deps.metrics,
    clock,
    internalSecret: config.internalSecret,
    ingestKeys: createHttpIngestKeyResolver({
      identityUrl: config.identityUrl,
      internalSecret: config.internalSecret,
    }),
    consoleSessions: createIdentityConsoleSessions({
      identityUrl: config.identityUrl,
      internalSecret: config.internalSecret,
      ...(tracer ? { tracer } : {}),
    }),
    ...(tracer ? { tracer } : {}),
  });
  return {
    app,
    db,
    tracer,
    async close() {
      await tracer?.shutdown();
      await db.close();
    },
  };
}

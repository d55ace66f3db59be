import type { Metrics } from '@svc/metrics';
import { createPostgres, type Postgres } from '@svc/postgres';
import { createSelfTracer, type Tracer } from '@svc/self-trace';
import type { Logger } from '@svc/tool-kit';
import type { Express } from 'express';
import { createIdentityApp } from './app';
import { resolveCheckpointKey } from './checkpoints/checkpoint-key';
import type { CheckpointStore } from './checkpoints/checkpoint-store';
import { openFileCheckpointStore } from './checkpoints/file-checkpoint-store';
import type { IdentityConfig } from './config';
import { createInvalidationHub, type InvalidationHub } from './invalidation/hub';
import { migrateIdentity } from './migrations';

export interface WiredIdentity {
  app: Express;
  db: Postgres;
  /** End the gateways' invalidation streams before closing the HTTP server (they never end themselves). */
  invalidations: InvalidationHub;
  /** The audit checkpoint log under the checkpoint dir. */
  checkpoints: CheckpointStore;
  /** Self-tracing's tracer, when SVC_SELF_TRACE_PROJECT is set (shut down by close()). */
  tracer: Tracer | undefined;
  /** Closes the stores. The HTTP server is the caller's. */
  close(): Promise<void>;
}

/**
 * Identity from its configuration: the checkpoint log opened (first: a wrong key fails fast),
 * the store opened and migrated, then the app (main.ts, standalone).
 */
export async function wireIdentity(
  config: IdentityConfig,
  deps: { logger: Logger; metrics: Metrics },
): Promise<WiredIdentity> {
  const { key, source, kid } = await resolveCheckpointKey(config.auditCheckpoints, deps.logger);
  const checkpoints = await openFileCheckpointStore({
    dir: config.auditCheckpoints.dir,
    key,
    logger: deps.logger,
  });
  deps.logger.info(
    { location: checkpoints.location, key_source: source, key_id: kid },
    'audit checkpoint log open',
  );
  let db: Postgres;
  try {
    db = await createPostgres(config.database);
  } catch (err) {
    await checkpoints.close();
    throw err;
  }
  try {
    const applied = await migrateIdentity(db);
    if (applied.length > 0) deps.logger.info({ applied }, 'identity migrations applied');
  } catch (err) {
    await db.close();
    await checkpoints.close();
    throw err;
  }
  const invalidations = createInvalidationHub({ db, logger: deps.logger, metrics: deps.metrics });
  const tracer = createSelfTracer({
    service: 'identity',
    internalSecret: config.internalSecret,
    logger: deps.logger,
    ...config.selfTrace,
  });
  const app = createIdentityApp({
    db,
    internalSecret: config.internalSecret,
    logger: deps.logger,
    metrics: deps.metrics,
    ingestEndpoint: config.ingestEndpoint,
    invalidations,
    checkpoints,
    oauth: config.oauth,
    trustedProxies: config.trustedProxies,
    ...(tracer ? { tracer } : {}),
  });
  return {
    app,
    db,
    invalidations,
    checkpoints,
    tracer,
    async close() {
      await tracer?.shutdown();
      await invalidations.close();
      await db.close();
      await checkpoints.close();
    },
  };
}

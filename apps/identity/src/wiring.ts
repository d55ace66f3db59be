import type { Metrics } from '@svc/metrics';
import { createPostgres, type Postgres } from '@svc/postgres';
import type { Logger } from '@svc/tool-kit';
import type { Express } from 'express';
import { createIdentityApp } from './app';
import type { IdentityConfig } from './config';
import { createInvalidationHub, type InvalidationHub } from './invalidation/hub';
import { migrateIdentity } from './migrations';

export interface WiredIdentity {
  app: Express;
  db: Postgres;
  /** End the gateways' invalidation streams before closing the HTTP server (they never end themselves). */
  invalidations: InvalidationHub;
  /** Closes the store. The HTTP server is the caller's. */
  close(): Promise<void>;
}

/** Identity from its configuration: the store opened and migrated, then the app (main.ts, standalone). */
export async function wireIdentity(
  config: IdentityConfig,
  deps: { logger: Logger; metrics: Metrics },
): Promise<WiredIdentity> {
  const db = await createPostgres(config.database);
  try {
    const applied = await migrateIdentity(db);
    if (applied.length > 0) deps.logger.info({ applied }, 'identity migrations applied');
  } catch (err) {
    await db.close();
    throw err;
  }
  const invalidations = createInvalidationHub({ db, logger: deps.logger, metrics: deps.metrics });
  const app = createIdentityApp({
    db,
    internalSecret: config.internalSecret,
    logger: deps.logger,
    metrics: deps.metrics,
    ingestEndpoint: config.ingestEndpoint,
    invalidations,
  });
  return {
    app,
    db,
    invalidations,
    async close() {
      await invalidations.close();
      await db.close();
    },
  };
}

import type { Metrics } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import type { Logger } from '@svc/tool-kit';
import type { Request } from 'express';
import type { CheckpointStore } from './checkpoints/checkpoint-store';
import type { InvalidationHub } from './invalidation/hub';

/** What the route modules share; built once by createIdentityApp. */
export interface IdentityContext {
  db: Postgres;
  logger: Logger;
  metrics: Metrics;
  /** The current time; injected so tests can move it (token expiry, step-up windows). */
  clock: () => Date;
  /** Public address of observability-core, for the DSN of new ingest keys. */
  ingestEndpoint: string;
  /** Tells subscribed gateways about revocations and capability changes, and waits for them. */
  invalidations: InvalidationHub;
  /** Where each committed audit append is anchored, outside the database. */
  checkpoints: CheckpointStore;
  /** The address a password check is throttled under (client-address.ts). */
  clientAddress: (req: Request) => string;
}

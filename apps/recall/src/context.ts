import type { Metrics } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import type { Logger } from '@svc/tool-kit';
import type { FileStore } from './file-store';
import type { KeyStore } from './keys';
import type { ReadLimits } from './read-budget';

export interface RecallContext {
  db: Postgres;
  files: FileStore;
  keys: KeyStore;
  logger: Logger;
  metrics: Metrics;
  clock: () => Date;
  /** Bounds of one file read (default DEFAULT_READ_LIMITS); tests change them. */
  readLimits?: ReadLimits;
}

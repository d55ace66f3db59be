import type { Metrics } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import type { Logger } from '@svc/tool-kit';
import type { FileStore } from './file-store';
import type { KeyStore } from './keys';

export interface RecallContext {
  db: Postgres;
  files: FileStore;
  keys: KeyStore;
  logger: Logger;
  metrics: Metrics;
  clock: () => Date;
}

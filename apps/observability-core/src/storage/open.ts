import { mkdirSync } from 'node:fs';
import { type ClickHouse, createClickHouse } from '@svc/clickhouse';
import type { StorageConfig } from '../config';

/** The configured ClickHouse: a server, or embedded chDB in its data directory. */
export async function openStorage(storage: StorageConfig, concurrency: number): Promise<ClickHouse> {
  if (storage.kind === 'server') {
    return createClickHouse({
      url: storage.url,
      database: storage.database,
      username: storage.username,
      password: storage.password,
      maxOpenConnections: concurrency,
    });
  }
  mkdirSync(storage.path, { recursive: true });
  return createClickHouse({ path: storage.path, database: storage.database, sessions: concurrency });
}

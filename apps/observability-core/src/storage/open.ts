import { mkdirSync } from 'node:fs';
import { type ClickHouse, createClickHouse, EmbeddedEngineMissingError } from '@svc/clickhouse';
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
  try {
    return await createClickHouse({ path: storage.path, database: storage.database, sessions: concurrency });
  } catch (err) {
    // The container images carry no chDB: name the variable that points the core at a server.
    if (err instanceof EmbeddedEngineMissingError)
      throw new Error(`${err.message} Set SVC_CLICKHOUSE_URL (e.g. http://clickhouse:8123).`, { cause: err });
    throw err;
  }
}

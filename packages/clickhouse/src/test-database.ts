import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClickHouse, createClickHouse } from './client';

/**
 * For tests: one embedded chDB per test process (one data dir, see client.ts), a fresh database
 * per caller. Drop it with `dropTestClickHouse` when done.
 */
export async function createTestClickHouse(prefix: string): Promise<ClickHouse> {
  const safe = prefix.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 40);
  const database = `t_${safe}_${randomBytes(4).toString('hex')}`;
  return createClickHouse({ path: join(tmpdir(), `svc-chdb-test-${process.pid}`), database });
}

export async function dropTestClickHouse(ch: ClickHouse): Promise<void> {
  try {
    await ch.command(`DROP DATABASE IF EXISTS ${ch.database}`);
  } finally {
    await ch.close();
  }
}

import { readFileSync } from 'node:fs';
import { createPostgres } from './create-postgres';
import { describePostgresContract } from './testing/contract-suite';
import {
  hasPostgresBinaries,
  startThrowawayCluster,
  type ThrowawayCluster,
} from './testing/throwaway-cluster';

// Runs against a real PostgreSQL 15 server; only machines without its binaries skip it.
const describeWithServer = hasPostgresBinaries ? describe : describe.skip;

describeWithServer('pg against a throwaway PostgreSQL 15 cluster', () => {
  let cluster: ThrowawayCluster;
  beforeAll(async () => {
    cluster = await startThrowawayCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  describePostgresContract(async () => {
    const db = await createPostgres({ url: cluster.url });
    expect(db.kind).toBe('pg');
    return db;
  });

  it("names the cluster's postmaster: a connection's backend is its child", async () => {
    const db = await createPostgres({ url: cluster.url });
    try {
      const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // /proc/<pid>/stat: "pid (comm) state ppid ...".
      const ppid = Number(readFileSync(`/proc/${rows[0]!.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      expect(ppid).toBe(cluster.pid);
    } finally {
      await db.close();
    }
  });

  it('fails fast when the server does not answer', async () => {
    await expect(createPostgres({ url: 'postgres://postgres@127.0.0.1:1/postgres' })).rejects.toThrow();
  });
});

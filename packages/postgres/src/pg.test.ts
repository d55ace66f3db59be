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

  it('fails fast when the server does not answer', async () => {
    await expect(createPostgres({ url: 'postgres://postgres@127.0.0.1:1/postgres' })).rejects.toThrow();
  });
});

import { existsSync, rmSync } from 'node:fs';
import { describePostgresContract } from './contract-suite';
import { emptyClusterDumpFile, memoryPostgres } from './memory-postgres';

// A database started from the dump behaves as one made by initdb: the drivers' whole contract, on
// the first one (which makes the dump, none being there) and on one started from that dump.
describe('PGlite in memory, the first one: makes the empty cluster dump', () => {
  describePostgresContract(async () => {
    rmSync(emptyClusterDumpFile(), { force: true });
    const db = await memoryPostgres();
    expect(existsSync(emptyClusterDumpFile())).toBe(true);
    return db;
  });
});

describe('PGlite in memory, a later one: starts from the dump', () => {
  describePostgresContract(memoryPostgres);
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgres } from './create-postgres';
import { describePostgresContract } from './testing/contract-suite';

describe('PGlite in memory', () => {
  describePostgresContract(() => createPostgres({ dataDir: ':memory:' }));
});

describe('PGlite on disk', () => {
  it('keeps data across a close and reopen of the same folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-pglite-'));
    try {
      const first = await createPostgres({ dataDir: join(dir, 'nested', 'db') });
      expect(first.kind).toBe('pglite');
      await first.exec('CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$still here$$);');
      await first.close();
      const second = await createPostgres({ dataDir: join(dir, 'nested', 'db') });
      expect((await second.query('SELECT v FROM kept')).rows).toEqual([{ v: 'still here' }]);
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

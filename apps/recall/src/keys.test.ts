import { randomBytes } from 'node:crypto';
import type { Postgres } from '@svc/postgres';
import { memoryPostgres } from '@svc/postgres/testing/memory';
import { encodeLogFile } from './file-codec';
import { bytesInMemory } from './file-store';
import { createKeyStore, parseMasterKey, unwrapKey, wrapKey } from './keys';
import { createPacer, DEFAULT_READ_LIMITS } from './read-budget';
import { migrateRecall } from './store/migrations';
import { readEntriesPage } from './tools/entries-page';

let db: Postgres;
beforeAll(async () => {
  db = await memoryPostgres();
  await migrateRecall(db);
});
afterAll(async () => {
  await db.close();
});

describe('project data keys', () => {
  const master = randomBytes(32);

  it('are wrapped for their project and version only', () => {
    const key = randomBytes(32);
    const wrapped = wrapKey(master, 'p1', 1, key);
    expect(unwrapKey(master, 'p1', 1, wrapped)).toEqual(key);
    expect(() => unwrapKey(master, 'p2', 1, wrapped)).toThrow();
    expect(() => unwrapKey(master, 'p1', 2, wrapped)).toThrow();
    expect(() => unwrapKey(randomBytes(32), 'p1', 1, wrapped)).toThrow();
    expect(wrapped).not.toContain(key.toString('base64'));
  });

  it('start at version 1, rotate to new versions, and keep old files readable', async () => {
    const keys = createKeyStore(db, master, () => new Date());
    const [a, b] = await Promise.all([keys.active('p_rot'), keys.active('p_rot')]);
    expect(a.version).toBe(1);
    expect(b.key).toEqual(a.key);
    const old = encodeLogFile([{ ts: 't', level: 'INFO', message: 'before rotation' }], a.key);
    const v2 = await keys.rotate('p_rot');
    expect(v2.version).toBe(2);
    expect(v2.key).not.toEqual(a.key);
    expect((await keys.active('p_rot')).version).toBe(2);
    // A new process (no cache) with the same master key reads the old file with version 1.
    const fresh = createKeyStore(db, master, () => new Date());
    const v1 = await fresh.version('p_rot', 1);
    const page = await readEntriesPage(
      bytesInMemory(old),
      v1!.key,
      { limit: 1 },
      DEFAULT_READ_LIMITS,
      createPacer(),
    );
    expect(page.items[0]!.message).toBe('before rotation');
    expect(await fresh.version('p_rot', 3)).toBeUndefined();
    expect(await fresh.version('p_other', 1)).toBeUndefined();
  });

  it('parse a master key from base64 or base64url, 32 bytes only', () => {
    const raw = randomBytes(32);
    expect(parseMasterKey(raw.toString('base64'))).toEqual(raw);
    expect(parseMasterKey(raw.toString('base64url'))).toEqual(raw);
    expect(() => parseMasterKey(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
  });
});

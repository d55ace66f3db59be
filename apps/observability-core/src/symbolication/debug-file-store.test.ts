import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findRepositoryRoot } from '@svc/config';
import { loadCoreConfig } from '../config';
import { createDebugFileStore, createTempDebugFileStore } from './debug-file-store';

describe('debug file store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'store-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores bytes under their sha256 and reads them back', async () => {
    const store = createDebugFileStore(dir);
    const bytes = Buffer.from('MODULE Linux x86_64 AB libx.so\n');
    const sha = await store.put(bytes);
    expect(sha).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect((await store.get(sha))?.equals(bytes)).toBe(true);
    expect(readdirSync(join(dir, sha.slice(0, 2)))).toEqual([sha]);
    expect(await store.get('0'.repeat(64))).toBeNull();
  });

  it('never turns anything but a hex digest into a path', async () => {
    const store = createDebugFileStore(dir);
    for (const hostile of ['../../etc/passwd', `${'a'.repeat(63)}/`, 'A'.repeat(64), '..', ''])
      await expect(store.get(hostile)).rejects.toThrow(/sha256/);
  });

  it('a temp store creates its directory only when first used', async () => {
    const store = createTempDebugFileStore();
    expect(await store.get('0'.repeat(64))).toBeNull();
    const sha = await store.put(Buffer.from('x'));
    expect(store.dir.startsWith(resolve(tmpdir()))).toBe(true);
    expect(await store.get(sha)).toEqual(Buffer.from('x'));
    rmSync(store.dir, { recursive: true, force: true });
  });

  it('is configured by SVC_DEBUG_FILES_DIR, else SVC_DATA_DIR/debug-files', () => {
    const secret = { SVC_INTERNAL_SECRET: 'a-long-enough-internal-secret' };
    expect(loadCoreConfig(secret).debugFilesDir).toBe(
      join(findRepositoryRoot(process.cwd())!, '.data/debug-files'),
    );
    expect(loadCoreConfig({ ...secret, SVC_DATA_DIR: '/var/svc' }).debugFilesDir).toBe(
      '/var/svc/debug-files',
    );
    expect(loadCoreConfig({ ...secret, SVC_DEBUG_FILES_DIR: '/srv/symbols' }).debugFilesDir).toBe(
      '/srv/symbols',
    );
  });
});

import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyValueStorage } from '../platform';

/**
 * The key-value storage as files in `dir`, one per key (the key percent-encoded as its name),
 * each written to a temporary file and renamed over the old one, so a process killed mid-write
 * leaves the old value or the new one, never half of either: what a phone's storage promises.
 */
export function fileStorage(dir: string): KeyValueStorage {
  const made = mkdir(dir, { recursive: true });
  const pathOf = (key: string) => join(dir, encodeURIComponent(key));
  let tmp = 0;
  return {
    async getItem(key) {
      await made;
      try {
        return await readFile(pathOf(key), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async setItem(key, value) {
      await made;
      const partial = join(dir, `.tmp-${process.pid}-${tmp++}`);
      await writeFile(partial, value, 'utf8');
      await rename(partial, pathOf(key));
    },
    async removeItem(key) {
      await made;
      await rm(pathOf(key), { force: true });
    },
    async getAllKeys() {
      await made;
      return (await readdir(dir)).filter((name) => !name.startsWith('.tmp-')).map(decodeURIComponent);
    },
  };
}

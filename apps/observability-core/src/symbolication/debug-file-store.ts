import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The bytes of uploaded debug files, on disk, addressed by the SHA-256 of their content. A client's
 * file name never becomes a path: the only path component derived from a request is the hex
 * digest computed here, checked again on every read. Identical content is stored once.
 */
export interface DebugFileStore {
  readonly dir: string;
  /** Stores the bytes (atomically: temp file, then rename) and answers their sha256 hex. */
  put(bytes: Buffer): Promise<string>;
  /** The bytes stored under `sha256`, or null when absent. */
  get(sha256: string): Promise<Buffer | null>;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function createDebugFileStore(dir: string): DebugFileStore {
  const root = resolve(dir);
  const pathOf = (sha256: string) => {
    if (!SHA256_HEX.test(sha256)) throw new Error('debug file address must be a sha256 hex digest');
    return join(root, sha256.slice(0, 2), sha256);
  };
  return {
    dir: root,
    async put(bytes) {
      const sha256 = sha256Hex(bytes);
      const target = pathOf(sha256);
      await mkdir(join(root, sha256.slice(0, 2)), { recursive: true });
      const temp = `${target}.${randomUUID()}.tmp`;
      try {
        await writeFile(temp, bytes, { mode: 0o600 });
        await rename(temp, target);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
      return sha256;
    },
    async get(sha256) {
      try {
        return await readFile(pathOf(sha256));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
  };
}

/**
 * For tests and apps started without a configured directory: a fresh directory under the OS temp
 * dir, created on the first upload (so an app that never receives one leaves nothing behind).
 */
export function createTempDebugFileStore(): DebugFileStore {
  let store: DebugFileStore | undefined;
  const real = () => {
    store ??= createDebugFileStore(mkdtempSync(join(tmpdir(), 'svc-debug-files-')));
    return store;
  };
  return {
    get dir() {
      return real().dir;
    },
    put: (bytes) => real().put(bytes),
    get: async (sha256) => (store ? store.get(sha256) : null),
  };
}

import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { INTERNAL_PROJECT_ID } from '@svc/tool-server/internal-auth';

// The bytes of uploaded files, on disk under the data dir: <root>/<project>/<file_id>.bin, written
// to a temporary name and renamed, so a crash never leaves half a file under its real name. Stored
// files never change afterwards, so a read may pass over them more than once.

/** A stored file opened for reading by position: readers take it a chunk at a time. */
export interface StoredBytes {
  readonly size: number;
  /** `length` bytes from `position` (fewer only at the end of the file). */
  read(position: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

export interface FileStore {
  readonly root: string;
  put(projectId: string, fileId: string, bytes: Buffer): Promise<void>;
  /** Removes bytes no row names (an upload refused after they were written); gone already is fine. */
  remove(projectId: string, fileId: string): Promise<void>;
  open(projectId: string, fileId: string): Promise<StoredBytes>;
}

/** Bytes already in memory as a StoredBytes (tests, and files built on the fly). */
export function bytesInMemory(bytes: Buffer): StoredBytes {
  return {
    size: bytes.length,
    read: async (position, length) => bytes.subarray(position, Math.min(bytes.length, position + length)),
    close: async () => {},
  };
}

export function createFileStore(root: string): FileStore {
  const pathOf = (projectId: string, fileId: string) => {
    // Both become path segments: the pattern of project ids in internal paths keeps them safe.
    if (!INTERNAL_PROJECT_ID.test(projectId) || !INTERNAL_PROJECT_ID.test(fileId))
      throw new Error('unsafe file path');
    return { dir: join(root, projectId.replace(/:/g, '_')), file: `${fileId}.bin` };
  };
  return {
    root,
    async put(projectId, fileId, bytes) {
      const { dir, file } = pathOf(projectId, fileId);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const tmp = join(dir, `.${file}.${process.pid}.tmp`);
      await writeFile(tmp, bytes, { mode: 0o600 });
      await rename(tmp, join(dir, file));
    },
    async remove(projectId, fileId) {
      const { dir, file } = pathOf(projectId, fileId);
      await rm(join(dir, file), { force: true });
    },
    async open(projectId, fileId) {
      const { dir, file } = pathOf(projectId, fileId);
      const handle = await open(join(dir, file), 'r');
      let size: number;
      try {
        size = (await handle.stat()).size;
      } catch (err) {
        await handle.close();
        throw err;
      }
      return {
        size,
        async read(position, length) {
          const want = Math.max(0, Math.min(length, size - position));
          const buffer = Buffer.allocUnsafe(want);
          let got = 0;
          while (got < want) {
            const { bytesRead } = await handle.read(buffer, got, want - got, position + got);
            if (bytesRead === 0) break;
            got += bytesRead;
          }
          return buffer.subarray(0, got);
        },
        close: () => handle.close(),
      };
    },
  };
}

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { INTERNAL_PROJECT_ID } from '@svc/tool-server/internal-auth';

// The bytes of uploaded files, on disk under the data dir: <root>/<project>/<file_id>.bin, written
// to a temporary name and renamed, so a crash never leaves half a file under its real name.

export interface FileStore {
  readonly root: string;
  put(projectId: string, fileId: string, bytes: Buffer): Promise<void>;
  get(projectId: string, fileId: string): Promise<Buffer>;
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
    async get(projectId, fileId) {
      const { dir, file } = pathOf(projectId, fileId);
      return readFile(join(dir, file));
    },
  };
}

import type { RecallContext } from './context';
import type { FileProblem } from './file-codec';
import type { StoredBytes } from './file-store';
import type { FileRow } from './store/files';

export type OpenedFile = { bytes: StoredBytes; key: Buffer; problem?: undefined } | { problem: FileProblem };

/**
 * A stored file's bytes, opened, with the key version it names; a missing key or missing bytes is
 * a decrypt problem. The caller closes `bytes`.
 */
export async function openStoredFile(ctx: RecallContext, row: FileRow): Promise<OpenedFile> {
  const key = await ctx.keys.version(row.project_id, row.key_version);
  if (!key) {
    return {
      problem: { stage: 'decrypt', line: null, message: 'The key version the file names does not exist.' },
    };
  }
  try {
    return { bytes: await ctx.files.open(row.project_id, row.file_id), key: key.key };
  } catch (err) {
    ctx.logger.error({ err, file_id: row.file_id }, 'recall file bytes missing');
    return {
      problem: { stage: 'decrypt', line: null, message: 'The stored bytes of the file are missing.' },
    };
  }
}

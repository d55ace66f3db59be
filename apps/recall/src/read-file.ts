import type { RecallContext } from './context';
import { type DecodedFile, decodeLogFile } from './file-codec';
import type { FileRow } from './store/files';

/** A stored file decoded with the key version it names; a missing key or missing bytes is a decrypt problem. */
export async function readStoredFile(ctx: RecallContext, row: FileRow): Promise<DecodedFile> {
  const key = await ctx.keys.version(row.project_id, row.key_version);
  let bytes: Buffer | undefined;
  try {
    bytes = await ctx.files.get(row.project_id, row.file_id);
  } catch (err) {
    ctx.logger.error({ err, file_id: row.file_id }, 'recall file bytes missing');
  }
  if (!key || !bytes) {
    return {
      entries: [],
      problem: {
        stage: 'decrypt',
        line: null,
        message: key
          ? 'The stored bytes of the file are missing.'
          : 'The key version the file names does not exist.',
      },
    };
  }
  return decodeLogFile(bytes, key.key);
}

import { createDecipheriv } from 'node:crypto';
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { QueryBudgetError } from '@svc/errors';
import { type FileProblem, IV_BYTES, MAX_DECOMPRESSED_BYTES, TAG_BYTES } from './file-codec';
import type { StoredBytes } from './file-store';
import { type LineHandler, LineSplitter } from './line-splitter';
import type { ReadPacer } from './read-budget';

// Reading a stored file (docs/recall.md, "Reading a file"), in two passes over its bytes:
// 1. the whole ciphertext is decrypted a chunk at a time and thrown away, to check the GCM tag:
//    AES-GCM authenticates only at the end, and no entry of a file whose tag does not verify may
//    leave (at most the 20 MB upload bound, about 30 ms of CPU in 1 MiB steps);
// 2. it is decrypted again and inflated lazily, only as far as the caller's lines need: the
//    caller stops reading once its page is full.
// Inflating runs on libuv's thread pool; the event loop only cuts the inflated text into lines, at
// most INFLATE_CHUNK_BYTES of it per turn.

/** Ciphertext decrypted per step while checking the tag. */
export const VERIFY_CHUNK_BYTES = 1024 * 1024;
/** Ciphertext decrypted per step while inflating. */
export const DECRYPT_CHUNK_BYTES = 64 * 1024;
/** Inflated text handed to the line splitter per turn of the event loop. */
export const INFLATE_CHUNK_BYTES = 16 * 1024;
/**
 * Inflated text zlib hands back at once, cut into INFLATE_CHUNK_BYTES steps: each trip to the
 * thread pool costs about as much as inflating 16 KiB of a file of blank lines, so 64 KiB a trip
 * halves the time of reading one.
 */
export const ZLIB_CHUNK_BYTES = 64 * 1024;

const DECRYPT_PROBLEM: FileProblem = {
  stage: 'decrypt',
  line: null,
  message:
    'The file does not decrypt with the project key it names: wrong key, or altered or truncated bytes.',
};

export interface ScanStats {
  /** Ciphertext bytes decrypted by both passes. */
  decryptedBytes: number;
  /** Inflated bytes handed to the line splitter. */
  inflatedBytes: number;
}

export type ScanEnd =
  /** The whole file was read; `lines`: the number of its last line. */
  | { end: 'eof'; lines: number; stats: ScanStats }
  /** The handler stopped reading. */
  | { end: 'stopped'; stats: ScanStats }
  /** The call's time ran out (ScanOptions.answerAtDeadline); `lines`: the last line handled. */
  | { end: 'deadline'; lines: number; stats: ScanStats }
  | { end: 'problem'; problem: FileProblem; stats: ScanStats };

export interface ScanOptions {
  /** Lines up to this one are counted, not decoded. */
  afterLine: number;
  pacer: ReadPacer;
  /** Awaited after each inflated chunk's lines were handled (a download writes them out then). */
  afterChunk?: () => Promise<void>;
  /**
   * When the pacer's deadline passes once lines after `afterLine` were handled, end with what was
   * read ('deadline') rather than the time budget error: the caller answers a page that says
   * where to go on. Before that line there is nothing to answer, and the error stands.
   */
  answerAtDeadline?: boolean;
}

/** Thrown by the store while reading: not a property of the file. */
class StoredBytesError extends Error {}

const isZlibError = (err: unknown) =>
  typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('Z_');

/** Pass 1: true when the tag verifies over the whole ciphertext. */
export async function verifyFile(
  bytes: StoredBytes,
  key: Buffer,
  pacer: ReadPacer,
  stats: ScanStats,
): Promise<boolean> {
  if (bytes.size < IV_BYTES + TAG_BYTES) return false;
  const end = bytes.size - TAG_BYTES;
  const decipher = createDecipheriv('aes-256-gcm', key, await bytes.read(0, IV_BYTES));
  decipher.setAuthTag(await bytes.read(end, TAG_BYTES));
  for (let at = IV_BYTES; at < end; at += VERIFY_CHUNK_BYTES) {
    const chunk = await bytes.read(at, Math.min(VERIFY_CHUNK_BYTES, end - at));
    stats.decryptedBytes += chunk.length;
    decipher.update(chunk);
    await pacer.turn();
  }
  try {
    decipher.final();
    return true;
  } catch {
    return false;
  }
}

/** Pass 2's source: the gzip bytes, decrypted as they are asked for (the tag was checked in pass 1). */
async function* decryptedChunks(bytes: StoredBytes, key: Buffer, stats: ScanStats): AsyncGenerator<Buffer> {
  const end = bytes.size - TAG_BYTES;
  let iv: Buffer;
  try {
    iv = await bytes.read(0, IV_BYTES);
  } catch (err) {
    throw new StoredBytesError('stored bytes unreadable', { cause: err });
  }
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  for (let at = IV_BYTES; at < end; at += DECRYPT_CHUNK_BYTES) {
    let chunk: Buffer;
    try {
      chunk = await bytes.read(at, Math.min(DECRYPT_CHUNK_BYTES, end - at));
    } catch (err) {
      throw new StoredBytesError('stored bytes unreadable', { cause: err });
    }
    stats.decryptedBytes += chunk.length;
    yield decipher.update(chunk);
  }
}

/**
 * Reads a stored file line by line from `afterLine` on, calling `onLine` for each non-blank line,
 * until the handler stops, the file ends or a problem stops reading: the tag does not verify
 * (decrypt), the gzip stream is damaged or inflates past MAX_DECOMPRESSED_BYTES (decompress; the
 * complete lines before it were handed out), or a line is longer than MAX_LINE_BYTES (parse).
 */
export async function scanFile(
  bytes: StoredBytes,
  key: Buffer,
  onLine: LineHandler,
  options: ScanOptions,
): Promise<ScanEnd> {
  const stats: ScanStats = { decryptedBytes: 0, inflatedBytes: 0 };
  if (!(await verifyFile(bytes, key, options.pacer, stats)))
    return { end: 'problem', problem: DECRYPT_PROBLEM, stats };
  const splitter = new LineSplitter(options.afterLine, onLine);
  const decompressProblem = (message: string): ScanEnd => ({
    end: 'problem',
    problem: { stage: 'decompress', line: splitter.line + 1, message },
    stats,
  });
  const gunzip = createGunzip({ chunkSize: ZLIB_CHUNK_BYTES });
  const source = Readable.from(decryptedChunks(bytes, key, stats), {
    objectMode: false,
    highWaterMark: DECRYPT_CHUNK_BYTES,
  });
  // Errors reach the loop below through gunzip; stopping early destroys both streams.
  pipeline(source, gunzip, () => {});
  try {
    for await (const inflated of gunzip as AsyncIterable<Buffer>) {
      for (let at = 0; at < inflated.length; at += INFLATE_CHUNK_BYTES) {
        const step = inflated.subarray(at, at + INFLATE_CHUNK_BYTES);
        const room = MAX_DECOMPRESSED_BYTES - stats.inflatedBytes;
        const chunk = step.length > room ? step.subarray(0, room) : step;
        stats.inflatedBytes += chunk.length;
        const stop = splitter.push(chunk);
        if (stop?.stop === 'handler') return { end: 'stopped', stats };
        if (stop?.stop === 'problem') return { end: 'problem', problem: stop.problem, stats };
        if (chunk !== step)
          return decompressProblem(`The file inflates past ${MAX_DECOMPRESSED_BYTES / 1024 / 1024} MB.`);
        await options.afterChunk?.();
        try {
          await options.pacer.turn();
        } catch (err) {
          if (
            options.answerAtDeadline &&
            err instanceof QueryBudgetError &&
            splitter.line > options.afterLine
          )
            return { end: 'deadline', lines: splitter.line, stats };
          throw err;
        }
      }
    }
  } catch (err) {
    if (err instanceof StoredBytesError || !isZlibError(err)) throw err;
    // What inflated before the damage is still the start of the file: its complete lines were read.
    return decompressProblem('The file is not valid gzip past some point (cut off or damaged).');
  } finally {
    gunzip.destroy();
    source.destroy();
  }
  const stop = splitter.finish();
  if (stop?.stop === 'handler') return { end: 'stopped', stats };
  if (stop?.stop === 'problem') return { end: 'problem', problem: stop.problem, stats };
  return { end: 'eof', lines: splitter.line, stats };
}

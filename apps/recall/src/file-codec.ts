import { createCipheriv, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';

// The device log file format (docs/recall.md): AES-256-GCM with the project's data key over gzip
// over NDJSON, one entry per line: {ts, level, tag?, message, ...any other fields}. On the wire
// and on disk: 12-byte IV || ciphertext || 16-byte tag. The key version travels beside the file.
// Reading it is file-reader.ts: a chunk at a time, never the whole file at once.

export const IV_BYTES = 12;
export const TAG_BYTES = 16;
/** A file never inflates past this (a gzip bomb is reported, not expanded). */
export const MAX_DECOMPRESSED_BYTES = 100 * 1024 * 1024;
/**
 * A longer line stops reading there (a parse problem). Parsing one line is a single synchronous
 * step: at 128 KiB its worst shapes (half a million nested arrays, tens of thousands of keys) take
 * a few ms of the event loop, and the time grows with the line.
 */
export const MAX_LINE_BYTES = 128 * 1024;

/** An entry as the device wrote it: the named fields checked, the rest still in `value`. */
export interface LogEntry {
  line: number;
  ts: string;
  level: string;
  tag: string | null;
  message: string;
  /** The whole parsed line; the fields other than ts, level, tag and message are read from it. */
  value: Record<string, unknown>;
}

export interface FileProblem {
  stage: 'decrypt' | 'decompress' | 'parse';
  /** parse and decompress: the line where reading stopped (entries before it were read). */
  line: number | null;
  message: string;
}

/** What an SDK does: entries to NDJSON, gzip, AES-256-GCM. Used by tests and the demo seeding. */
export function encodeLogFile(entries: readonly Record<string, unknown>[], key: Buffer): Buffer {
  const ndjson = `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`;
  return encryptFileBytes(gzipSync(Buffer.from(ndjson, 'utf8')), key);
}

export function encryptFileBytes(plain: Buffer, key: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

/** One line's text as an entry; null when it is not a JSON object with string ts, level and message. */
export function parseEntry(text: string, line: number): LogEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const { ts, level, tag, message } = value as Record<string, unknown>;
  if (typeof ts !== 'string' || typeof level !== 'string' || typeof message !== 'string') return null;
  if (tag !== undefined && tag !== null && typeof tag !== 'string') return null;
  return {
    line,
    ts,
    level,
    tag: typeof tag === 'string' ? tag : null,
    message,
    value: value as Record<string, unknown>,
  };
}

export const ENTRY_KEYS: ReadonlySet<string> = new Set(['ts', 'level', 'tag', 'message']);

export const parseProblem = (line: number): FileProblem => ({
  stage: 'parse',
  line,
  message: `Line ${line} is not a JSON object with string ts, level and message; reading stopped there.`,
});

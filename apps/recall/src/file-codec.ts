import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { constants, gunzipSync, gzipSync } from 'node:zlib';

// The device log file format (docs/recall.md): AES-256-GCM with the project's data key over gzip
// over NDJSON, one entry per line: {ts, level, tag?, message, ...any other fields}. On the wire
// and on disk: 12-byte IV || ciphertext || 16-byte tag. The key version travels beside the file.

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A file never inflates past this (a gzip bomb is reported, not expanded). */
export const MAX_DECOMPRESSED_BYTES = 100 * 1024 * 1024;

export interface LogEntry {
  line: number;
  ts: string;
  level: string;
  tag: string | null;
  message: string;
  fields: Record<string, unknown>;
}

export interface FileProblem {
  stage: 'decrypt' | 'decompress' | 'parse';
  /** parse and decompress: the line where reading stopped (entries before it were read). */
  line: number | null;
  message: string;
}

export interface DecodedFile {
  entries: LogEntry[];
  problem: FileProblem | null;
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

/**
 * Decrypts, decompresses and parses a file, as far as it goes: a file that fails at some stage
 * says which and where, with every entry read before it. Never an empty success.
 */
export function decodeLogFile(bytes: Buffer, key: Buffer): DecodedFile {
  let compressed: Buffer;
  try {
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('too short');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    compressed = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    return {
      entries: [],
      problem: {
        stage: 'decrypt',
        line: null,
        message:
          'The file does not decrypt with the project key it names: wrong key, or altered or truncated bytes.',
      },
    };
  }
  let text: string;
  let decompressProblem: string | null = null;
  try {
    text = gunzipSync(compressed, { maxOutputLength: MAX_DECOMPRESSED_BYTES }).toString('utf8');
  } catch (err) {
    decompressProblem =
      (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
        ? `The file inflates past ${MAX_DECOMPRESSED_BYTES / 1024 / 1024} MB.`
        : 'The file is not valid gzip past some point (cut off or damaged).';
    // What inflates before the damage is still the start of the file.
    text = salvage(compressed);
  }
  const lines = text.split('\n');
  // A damaged gzip stream may end inside a line: only complete lines are entries then.
  if (decompressProblem !== null) lines.pop();
  else if (lines[lines.length - 1] === '') lines.pop();
  const entries: LogEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    const entry = parseEntry(raw, i + 1);
    if (!entry) {
      return {
        entries,
        problem: {
          stage: 'parse',
          line: i + 1,
          message: `Line ${i + 1} is not a JSON object with string ts, level and message; reading stopped there.`,
        },
      };
    }
    entries.push(entry);
  }
  return {
    entries,
    problem:
      decompressProblem === null
        ? null
        : { stage: 'decompress', line: lines.length + 1, message: decompressProblem },
  };
}

function salvage(compressed: Buffer): string {
  try {
    return gunzipSync(compressed, {
      finishFlush: constants.Z_SYNC_FLUSH,
      maxOutputLength: MAX_DECOMPRESSED_BYTES,
    }).toString('utf8');
  } catch {
    return '';
  }
}

function parseEntry(raw: string, line: number): LogEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const { ts, level, tag, message, ...fields } = value as Record<string, unknown>;
  if (typeof ts !== 'string' || typeof level !== 'string' || typeof message !== 'string') return null;
  if (tag !== undefined && tag !== null && typeof tag !== 'string') return null;
  return { line, ts, level, tag: typeof tag === 'string' ? tag : null, message, fields };
}

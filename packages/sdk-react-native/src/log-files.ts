import { utf8Length } from './bytes';
import type { KeyValueStorage } from './platform';
import { unrefTimer } from './timers';

// The device's log: one NDJSON file per UTC day (docs/recall.md, "File format"), kept in the
// key-value storage as chunks of whole lines, so a line is appended without rewriting the day:
// `svc.log.<day>.<seq>.<bytes>.<lines>`. A chunk never changes once written, so its size and line
// count live in its key and the files are known from the keys alone.

const PREFIX = 'svc.log.';
const CHUNK_KEY = /^svc\.log\.(\d{4}-\d{2}-\d{2})\.(\d{9})\.(\d+)\.(\d+)$/;
/** Lines are buffered up to this many bytes, or FLUSH_DELAY_MS, then written as one chunk. */
const CHUNK_BYTES = 16 * 1024;
const FLUSH_DELAY_MS = 2_000;
/** Buffered at most while storage does not take writes; further lines are dropped and counted. */
const MAX_BUFFER_BYTES = 256 * 1024;
/** The reader refuses lines over 128 KiB; a longer line is cut well before that. */
const MAX_LINE_BYTES = 32 * 1024;
const RESERVED = new Set(['ts', 'level', 'tag', 'message']);

export interface LogFileLimits {
  /** Bytes a day's file keeps at most; past it the day's oldest lines go first. Default 1 MiB. */
  maxDayBytes?: number;
  /** Days kept, today included; older days are deleted. Default 3. */
  keepDays?: number;
}

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';

interface Chunk {
  key: string;
  day: string;
  seq: number;
  bytes: number;
  lines: number;
}

export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function lineOf(
  now: number,
  level: string,
  message: string,
  tag: string | undefined,
  fields: Record<string, unknown> | undefined,
): string {
  const entry: Record<string, unknown> = { ts: new Date(now).toISOString(), level };
  if (tag) entry.tag = tag;
  entry.message = message;
  for (const [key, value] of Object.entries(fields ?? {})) if (!RESERVED.has(key)) entry[key] = value;
  const head = { ts: entry.ts, level, ...(tag ? { tag } : {}), message };
  let line: string;
  try {
    line = JSON.stringify(entry);
  } catch {
    // A cycle or a BigInt in the fields: the line is kept without them.
    line = JSON.stringify(head);
  }
  if (utf8Length(line) <= MAX_LINE_BYTES) return line;
  const cut = message.length > 8192 ? `${message.slice(0, 8192)}…[truncated]` : message;
  return JSON.stringify({ ...head, message: cut, truncated: true });
}

/**
 * The day files: lines appended (buffered, written a chunk at a time), each day bounded (its
 * oldest chunks dropped first, counted), days past `keepDays` deleted. Chunks an upload is reading
 * are protected from both until the upload is done.
 */
export class LogFiles {
  private chunks: Chunk[] = [];
  private nextSeq = 1;
  private buffered = new Map<string, { text: string; bytes: number; lines: number }>();
  private bufferedBytes = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private markLoaded: () => void = () => undefined;
  /** Writes wait for `load`: a chunk's number follows the stored ones. */
  private writes: Promise<void> = new Promise((resolve) => {
    this.markLoaded = resolve;
  });
  private readonly protectedBy = new Map<string, Set<number>>();
  private readonly maxDayBytes: number;
  private readonly keepDays: number;
  /** Lines lost: dropped by a day's bound, by retention, or while storage did not take them. */
  droppedLines = 0;

  constructor(
    private readonly storage: KeyValueStorage,
    limits: LogFileLimits = {},
    private readonly onStorageError: (error: unknown) => void = () => undefined,
  ) {
    this.maxDayBytes = Math.max(CHUNK_BYTES, limits.maxDayBytes ?? 1024 * 1024);
    this.keepDays = Math.max(1, Math.floor(limits.keepDays ?? 3));
  }

  async load(): Promise<void> {
    try {
      const chunks: Chunk[] = [];
      for (const key of await this.storage.getAllKeys()) {
        const m = CHUNK_KEY.exec(key);
        if (m) chunks.push({ key, day: m[1]!, seq: Number(m[2]), bytes: Number(m[3]), lines: Number(m[4]) });
      }
      chunks.sort((a, b) => a.seq - b.seq);
      this.chunks = chunks;
      this.nextSeq = (chunks.at(-1)?.seq ?? 0) + 1;
    } finally {
      this.markLoaded();
    }
  }

  /** Appends one entry to the file of the day of `now`. */
  write(
    level: LogLevel | string,
    message: string,
    fields?: Record<string, unknown>,
    tag?: string,
    now = Date.now(),
  ): void {
    const line = `${lineOf(now, level, message, tag, fields)}\n`;
    const bytes = utf8Length(line);
    if (this.bufferedBytes + bytes > MAX_BUFFER_BYTES) {
      this.droppedLines++;
      return;
    }
    const day = dayOf(now);
    const buffer = this.buffered.get(day) ?? { text: '', bytes: 0, lines: 0 };
    buffer.text += line;
    buffer.bytes += bytes;
    buffer.lines++;
    this.buffered.set(day, buffer);
    this.bufferedBytes += bytes;
    if (buffer.bytes >= CHUNK_BYTES) void this.flush();
    else this.timer ??= unrefTimer(setTimeout(() => void this.flush(), FLUSH_DELAY_MS));
  }

  /** Writes what is buffered; resolves once it is in storage (or storage refused it). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const buffered = [...this.buffered];
    this.buffered.clear();
    this.bufferedBytes = 0;
    this.writes = this.writes
      .then(async () => {
        for (const [day, { text, bytes, lines }] of buffered) {
          const seq = this.nextSeq++;
          const key = `${PREFIX}${day}.${String(seq).padStart(9, '0')}.${bytes}.${lines}`;
          try {
            await this.storage.setItem(key, text);
            this.chunks.push({ key, day, seq, bytes, lines });
          } catch (err) {
            this.droppedLines += lines;
            this.onStorageError(err);
          }
        }
        await this.enforceLimits();
      })
      .catch((err: unknown) => this.onStorageError(err));
    return this.writes;
  }

  /** Days with lines, newest first (what is buffered included), at most `keepDays`. */
  days(): string[] {
    const days = new Set([...this.chunks.map((c) => c.day), ...this.buffered.keys()]);
    return [...days].sort().reverse().slice(0, this.keepDays);
  }

  /** The chunks of `day` written so far (flush first for what is buffered). */
  seqsOf(day: string): number[] {
    return this.chunks.filter((c) => c.day === day).map((c) => c.seq);
  }

  /** The text of the chunks `seqs` of `day` that still exist, in order. */
  async read(day: string, seqs: readonly number[]): Promise<string> {
    const wanted = new Set(seqs);
    let text = '';
    for (const chunk of this.chunks)
      if (chunk.day === day && wanted.has(chunk.seq)) text += (await this.storage.getItem(chunk.key)) ?? '';
    return text;
  }

  /** Keeps `seqs` from rotation and retention until `release(owner)`. */
  protect(owner: string, seqs: readonly number[]): void {
    this.protectedBy.set(owner, new Set(seqs));
  }

  release(owner: string): void {
    this.protectedBy.delete(owner);
  }

  private isProtected(seq: number): boolean {
    for (const seqs of this.protectedBy.values()) if (seqs.has(seq)) return true;
    return false;
  }

  private async enforceLimits(): Promise<void> {
    const days = [...new Set(this.chunks.map((c) => c.day))].sort().reverse();
    const victims: Chunk[] = [];
    days.forEach((day, index) => {
      const chunks = this.chunks.filter((c) => c.day === day && !this.isProtected(c.seq));
      if (index >= this.keepDays) {
        victims.push(...chunks);
        return;
      }
      let bytes = this.chunks.filter((c) => c.day === day).reduce((n, c) => n + c.bytes, 0);
      for (const chunk of chunks) {
        if (bytes <= this.maxDayBytes) break;
        victims.push(chunk);
        bytes -= chunk.bytes;
      }
    });
    for (const victim of victims) {
      this.chunks = this.chunks.filter((c) => c !== victim);
      this.droppedLines += victim.lines;
      try {
        await this.storage.removeItem(victim.key);
      } catch (err) {
        this.onStorageError(err);
      }
    }
  }
}

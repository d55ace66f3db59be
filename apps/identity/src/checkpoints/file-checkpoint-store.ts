import { constants, createReadStream, fstatSync } from 'node:fs';
import { type FileHandle, mkdir, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Checkpoint, checkpointKeyId, checkpointLine, readCheckpointLine } from '@svc/audit';
import { ConfigError } from '@svc/config';
import type { Logger } from '@svc/tool-kit';
import type { CheckpointEntry, CheckpointStore } from './checkpoint-store';

/** The checkpoint log inside the checkpoint dir: JSON lines, appended only. */
export const CHECKPOINT_LOG_FILE = 'audit-checkpoints.jsonl';
/** Identity's lines are about 250 bytes; anything this long is not one of them. */
const MAX_LINE_BYTES = 16 * 1024;
const NEWLINE = 0x0a;
/**
 * Where the platform has it (Linux, macOS), the log is opened for synchronous data writes: a write
 * returns once its bytes are on disk, one system call where a write and an fdatasync take two trips
 * through the thread pool. Elsewhere each write is followed by an fdatasync, as durable either way.
 */
const DSYNC: number | undefined = constants.O_DSYNC;
/** 'a+' (every write at the end, reads for repairs), and O_DSYNC where there is one. */
const LOG_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (DSYNC ?? 0);

export interface FileCheckpointStoreOptions {
  dir: string;
  key: string;
  logger: Logger;
}

/**
 * The checkpoint log as a file, `<dir>/audit-checkpoints.jsonl`, for one identity process (two
 * processes appending to one file is not supported: give each its own dir). Opening it drops an
 * incomplete last line left by a crash and refuses a key other than the one its lines are signed with.
 */
export async function openFileCheckpointStore(options: FileCheckpointStoreOptions): Promise<CheckpointStore> {
  const store = new FileCheckpointStore(options);
  await store.open();
  return store;
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

class FileCheckpointStore implements CheckpointStore {
  readonly location: string;
  private readonly key: string;
  private readonly logger: Logger;
  private handle: FileHandle | undefined;
  /** Size of the file after this process's last write; -1 when unknown (check before writing). */
  private size = -1;
  /** Group commit: checkpoints waiting for the next write, the newest per project. */
  private pending = new Map<string, Checkpoint>();
  private waiters: Waiter[] = [];
  private writing: Promise<void> | undefined;
  /** Readers taking the file's size: no write starts meanwhile, so none is read half-written. */
  private sizing = 0;
  private closed = false;

  constructor(private readonly options: FileCheckpointStoreOptions) {
    this.location = join(options.dir, CHECKPOINT_LOG_FILE);
    this.key = options.key;
    this.logger = options.logger;
  }

  async open(): Promise<void> {
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    const handle = await this.fileHandle();
    try {
      const { size } = await handle.stat();
      this.size = await this.dropTornTail(handle, size);
      await this.refuseOtherKey(handle);
    } catch (err) {
      this.handle = undefined;
      await handle.close();
      throw err;
    }
  }

  append(checkpoints: readonly Checkpoint[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`the checkpoint log ${this.location} is closed`));
    const useful = checkpoints.filter((c) => c.seq > 0);
    if (useful.length === 0) return Promise.resolve();
    for (const checkpoint of useful) {
      const queued = this.pending.get(checkpoint.project_id);
      if (!queued || checkpoint.seq >= queued.seq) this.pending.set(checkpoint.project_id, checkpoint);
    }
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.startWrite();
    return done;
  }

  // One write (and fsync) at a time; appends arriving meanwhile share the next one. Under load a
  // busy project gets one line per fsync instead of one per append, and nobody waits more than
  // two fsyncs.
  private startWrite(): void {
    if (this.writing || this.sizing > 0 || this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    const waiters = this.waiters;
    this.pending = new Map();
    this.waiters = [];
    this.writing = this.write(batch)
      .then(
        () => {
          for (const w of waiters) w.resolve();
        },
        (err: unknown) => {
          for (const w of waiters) w.reject(err);
        },
      )
      .finally(() => {
        this.writing = undefined;
        this.startWrite();
      });
  }

  private async write(batch: Checkpoint[]): Promise<void> {
    const text = batch.map((c) => `${checkpointLine(this.key, c)}\n`).join('');
    const bytes = Buffer.from(text, 'utf8');
    const handle = await this.fileHandle();
    try {
      // fstat on the event loop: it runs on every audit write, and FileHandle.stat's round trip
      // through the thread pool costs many times the call itself.
      const { size } = fstatSync(handle.fd);
      if (size !== this.size) {
        if (this.size >= 0) {
          this.logger.warn(
            {
              event: 'audit_checkpoint_log_changed',
              path: this.location,
              expected_bytes: this.size,
              bytes: size,
            },
            'the checkpoint log was changed by something other than this process',
          );
        }
        this.size = await this.dropTornTail(handle, size);
      }
      for (let offset = 0; offset < bytes.length; ) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, null);
        offset += bytesWritten;
      }
      if (DSYNC === undefined) await handle.datasync();
      this.size += bytes.length;
    } catch (err) {
      // The file may now end in part of a line: reopen, and repair, before the next write.
      this.handle = undefined;
      this.size = -1;
      await handle.close().catch(() => {});
      throw err;
    }
  }

  private async fileHandle(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    const existed = await stat(this.location).then(
      () => true,
      () => false,
    );
    const handle = await open(this.location, LOG_FLAGS, 0o600);
    if (!existed) await syncDir(this.options.dir);
    this.handle = handle;
    return handle;
  }

  /**
   * A last line without its line break is a write cut short (by a crash, or a failed write): it
   * was never acknowledged, so it is cut off before anything is appended after it.
   */
  private async dropTornTail(handle: FileHandle, size: number): Promise<number> {
    if (size === 0) return 0;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] === NEWLINE) return size;
    const keep = await endOfLastCompleteLine(handle, size);
    await handle.truncate(keep);
    await handle.sync();
    this.logger.warn(
      { event: 'audit_checkpoint_torn_line', path: this.location, dropped_bytes: size - keep },
      'dropped an incomplete last line of the checkpoint log (a write cut short; it was never acknowledged)',
    );
    return keep;
  }

  /** A new key for an existing log would make every earlier checkpoint unverifiable: refuse to start. */
  private async refuseOtherKey(handle: FileHandle): Promise<void> {
    const line = await lastLine(handle, this.size);
    if (line === undefined) return;
    let kid: unknown;
    try {
      kid = (JSON.parse(line) as { kid?: unknown } | null)?.kid;
    } catch {
      return; // not a checkpoint: verification reports it
    }
    const configured = checkpointKeyId(this.key);
    if (typeof kid !== 'string' || kid === configured) return;
    throw new ConfigError('identity', [
      `the audit checkpoint log ${this.location} is signed with key id ${kid}, but the configured key has ` +
        `id ${configured}: restore the key it was written with (SVC_AUDIT_CHECKPOINT_KEY, or the ` +
        `audit-checkpoint-key file in ${this.options.dir}), or move the log aside to start a new one ` +
        '(its checkpoints then no longer protect the records they anchor)',
    ]);
  }

  async *read(): AsyncGenerator<CheckpointEntry> {
    // This process's write in progress finishes first and the next waits until the size is taken,
    // so the read ends on a whole line of ours (appends queue meanwhile, for one stat).
    let size: number;
    this.sizing++;
    try {
      while (this.writing) await this.writing;
      size = (await stat(this.location)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    } finally {
      this.sizing--;
      this.startWrite();
    }
    if (size === 0) return;
    let line = 0;
    let parts: Buffer[] = [];
    let partBytes = 0;
    let oversized = false;
    const complete = (): CheckpointEntry => {
      line++;
      const entry: CheckpointEntry = oversized
        ? { kind: 'unreadable', line, reason: `longer than ${MAX_LINE_BYTES} bytes` }
        : this.entryOf(line, Buffer.concat(parts, partBytes).toString('utf8'));
      parts = [];
      partBytes = 0;
      oversized = false;
      return entry;
    };
    const keep = (piece: Buffer) => {
      if (oversized) return;
      if (partBytes + piece.length > MAX_LINE_BYTES) {
        oversized = true;
        parts = [];
        return;
      }
      parts.push(piece);
      partBytes += piece.length;
    };
    for await (const chunk of createReadStream(this.location, {
      start: 0,
      end: size - 1,
    }) as AsyncIterable<Buffer>) {
      let from = 0;
      for (;;) {
        const newline = chunk.indexOf(NEWLINE, from);
        if (newline < 0) {
          if (from < chunk.length) keep(chunk.subarray(from));
          break;
        }
        keep(chunk.subarray(from, newline));
        yield complete();
        from = newline + 1;
      }
    }
    if (partBytes > 0 || oversized) yield { kind: 'torn', line: line + 1, bytes: partBytes };
  }

  private entryOf(line: number, text: string): CheckpointEntry {
    const verdict = readCheckpointLine(this.key, text);
    switch (verdict.kind) {
      case 'valid':
        return { kind: 'valid', line, checkpoint: verdict.checkpoint };
      case 'forged':
        return {
          kind: 'forged',
          line,
          project_id: verdict.project_id,
          ...(verdict.seq === undefined ? {} : { seq: verdict.seq }),
          reason: verdict.reason,
        };
      case 'unreadable':
        return { kind: 'unreadable', line, reason: verdict.reason };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.writing) await this.writing;
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }
}

/** Offset just past the last line break before `size`; 0 when there is none. */
async function endOfLastCompleteLine(handle: FileHandle, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const at = chunk.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}

/** The last complete line of a file that ends in a line break; undefined when empty or too long. */
async function lastLine(handle: FileHandle, size: number): Promise<string | undefined> {
  if (size === 0) return undefined;
  const length = Math.min(size, MAX_LINE_BYTES + 1);
  const tail = Buffer.alloc(length);
  const { bytesRead } = await handle.read(tail, 0, length, size - length);
  const text = tail.subarray(0, bytesRead - 1); // without the final line break
  const start = text.lastIndexOf(NEWLINE);
  if (start < 0 && length < size) return undefined;
  return text.subarray(start + 1).toString('utf8');
}

/** Makes a new file's directory entry durable (the file's own fsync does not cover it). */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

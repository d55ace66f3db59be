import type { Checkpoint, SignedCheckpoint } from '@svc/audit';

// Why an interface: the checkpoints are worth exactly as much as their distance from the database
// they anchor. A file under the data dir suits one identity process on one host (a database
// superuser cannot reach it; someone with a shell on that host can). At scale, or with several
// identity replicas, the same contract fits an object store with object lock (write once, no
// deletes before retention ends): `append` puts one object per batch, `read` lists them in order.
// Signing and checking signatures stay outside the implementations (@svc/audit), so every backend
// reads and writes the same lines.

/** What one stored line turned out to be, in the order they were written (line numbers from 1). */
export type CheckpointEntry =
  | { kind: 'valid'; line: number; checkpoint: SignedCheckpoint }
  /** Names a project but its signature does not verify: tampering with the checkpoint log. */
  | { kind: 'forged'; line: number; project_id: string; seq?: number; reason: string }
  /** Not a checkpoint, and no project can be told from it: corruption or tampering. */
  | { kind: 'unreadable'; line: number; reason: string }
  /**
   * The last line, without its line break: a write cut short by a crash, never acknowledged (the
   * append answers only after its line is on disk). Skipped, and reported as a warning.
   */
  | { kind: 'torn'; line: number; bytes: number };

export interface CheckpointStore {
  /** Where the checkpoints are kept (a path, a bucket), for messages and the verify answer. */
  readonly location: string;
  /**
   * Signs and stores checkpoints; resolves once they would survive a crash of this host. A
   * checkpoint with a higher seq for the same project may stand in for a lower one not yet written
   * (the hash chain makes it cover every record before it).
   */
  append(checkpoints: readonly Checkpoint[]): Promise<void>;
  /** Every stored line, oldest first, each one checked against the key. */
  read(): AsyncIterable<CheckpointEntry>;
  /** Waits for the write in progress, then releases the store; later appends are refused. */
  close(): Promise<void>;
}

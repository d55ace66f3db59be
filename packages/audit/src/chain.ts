import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import { type AuditEntry, auditEntrySchema, type StoredAuditRecord } from './record';

/** prev_hash of the first record of every project. */
export const GENESIS_HASH = '0'.repeat(64);

const ENTRY_FIELDS = Object.keys(auditEntrySchema.shape) as (keyof AuditEntry)[];

/**
 * Hash of one record: SHA-256 over the canonical JSON of its entry fields plus its `seq` and the
 * previous record's hash. Fields outside the entry schema (a stored record's own `hash`) are
 * ignored, so a stored record can be passed as is.
 */
export function hashRecord(prevHash: string, entry: AuditEntry, seq: number): string {
  const hashed: Record<string, unknown> = { seq, prev_hash: prevHash };
  for (const field of ENTRY_FIELDS) hashed[field] = entry[field];
  return createHash('sha256').update(canonicalJson(hashed), 'utf8').digest('hex');
}

/**
 * What broke, machine-readable; `reason` says the same for a human. The first five come from the
 * records and the chain head; the others from holding the chain against its checkpoints (identity).
 */
export type ChainProblemCode =
  | 'record_missing'
  | 'record_out_of_order'
  | 'prev_hash_mismatch'
  | 'hash_mismatch'
  | 'head_mismatch'
  | 'head_missing'
  | 'behind_checkpoint'
  | 'checkpoint_mismatch'
  | 'checkpoint_forged'
  | 'checkpoint_log_unreadable';

/** A checkpoint as verification reports it (the signature already checked). */
export interface CheckpointRef {
  seq: number;
  hash: string;
  at: string;
}

export interface ChainVerification {
  ok: boolean;
  /** Records found intact before the first break (all of them when ok). */
  checked: number;
  broken_at_seq?: number;
  reason?: string;
  code?: ChainProblemCode;
  /**
   * The newest validly signed checkpoint the chain was held against; null when the project has
   * none (records appended before checkpoints existed, or a checkpoint write that never finished).
   */
  checkpoint?: CheckpointRef | null;
  /** Records a checkpoint proves were written and the database no longer has (behind_checkpoint). */
  missing_from_seq?: number;
  missing_to_seq?: number;
}

/** Where the chain is known to end (identity keeps it per project), to detect a deleted tail. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** Verifies a chain fed in pieces (e.g. pages read from a store), oldest first. */
export class ChainVerifier {
  private expectedSeq = 1;
  private prevHash = GENESIS_HASH;
  private checked = 0;
  private broken: { seq: number; reason: string; code: ChainProblemCode } | undefined;

  /** Feeds the next records; returns false once the chain is broken (further input is ignored). */
  add(records: readonly StoredAuditRecord[]): boolean {
    for (const record of records) {
      if (this.broken) return false;
      this.check(record);
    }
    return !this.broken;
  }

  private check(record: StoredAuditRecord): void {
    const seq = this.expectedSeq;
    if (record.seq !== seq) {
      this.broken =
        record.seq > seq
          ? { seq, code: 'record_missing', reason: `record ${seq} is missing` }
          : {
              seq,
              code: 'record_out_of_order',
              reason: `record ${record.seq} is out of order or duplicated`,
            };
    } else if (record.prev_hash !== this.prevHash) {
      this.broken = {
        seq,
        code: 'prev_hash_mismatch',
        reason: 'prev_hash does not match the hash of the previous record',
      };
    } else if (hashRecord(record.prev_hash, record, record.seq) !== record.hash) {
      this.broken = { seq, code: 'hash_mismatch', reason: 'hash does not match the record content' };
    } else {
      this.checked++;
      this.expectedSeq = seq + 1;
      this.prevHash = record.hash;
    }
  }

  result(head?: ChainHead | null): ChainVerification {
    if (this.broken) {
      const { seq, reason, code } = this.broken;
      return { ok: false, checked: this.checked, broken_at_seq: seq, reason, code };
    }
    const lastSeq = this.expectedSeq - 1;
    if (head && (head.seq !== lastSeq || head.hash !== this.prevHash)) {
      if (head.seq > lastSeq) {
        return {
          ok: false,
          checked: this.checked,
          broken_at_seq: lastSeq + 1,
          reason: `record ${lastSeq + 1} is missing`,
          code: 'record_missing',
        };
      }
      return {
        ok: false,
        checked: this.checked,
        broken_at_seq: head.seq,
        reason: 'chain head does not match the last record',
        code: 'head_mismatch',
      };
    }
    return { ok: true, checked: this.checked };
  }
}

/** Recomputes one project's chain, records in seq order starting at 1. */
export function verifyChain(
  records: readonly StoredAuditRecord[],
  options: { head?: ChainHead | null } = {},
): ChainVerification {
  const verifier = new ChainVerifier();
  verifier.add(records);
  return verifier.result(options.head);
}

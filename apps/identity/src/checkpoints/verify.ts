import type { ChainProblemCode, ChainVerification, CheckpointRef, SignedCheckpoint } from '@svc/audit';
import { BackendUnavailableError } from '@svc/errors';
import type { Queryable } from '@svc/postgres';
import type { Logger } from '@svc/tool-kit';
import { lastAuditSeq, verifyAudit } from '../store/audit';
import type { CheckpointEntry, CheckpointStore } from './checkpoint-store';

// Verification holds every project's chain against the checkpoint log, not only its newest
// checkpoint: a chain cut back and then appended to again (the next append reuses the freed seqs)
// ends past its newest checkpoint, but no longer has the records the earlier checkpoints name.

export interface ChainProblem {
  code: ChainProblemCode;
  reason: string;
  broken_at_seq?: number;
}

export interface ProjectVerification extends ChainVerification {
  project_id: string;
  /** Every problem found when not ok; the first (lowest seq) is also in code, reason, broken_at_seq. */
  problems?: ChainProblem[];
  /** What was skipped without failing: an incomplete last line of the log. */
  warnings?: string[];
}

export interface CheckpointLogReport {
  location: string;
  /** Complete lines read. */
  lines: number;
  /** Lines no project can be told from (at most MAX_LISTED; `unreadable_lines` counts them all). */
  unreadable: { line: number; reason: string }[];
  unreadable_lines: number;
  warnings: string[];
}

export interface AuditVerification {
  ok: boolean;
  projects: ProjectVerification[];
  checkpoint_log: CheckpointLogReport;
}

/** Lines listed per project and for the log before the rest is only counted. */
const MAX_LISTED = 5;
/** Checkpoints looked up in the database per query. */
const LOOKUP_BATCH = 500;

interface Anchor {
  /** The newest valid checkpoint (highest seq; the later line on a tie). */
  latest?: SignedCheckpoint;
  /** The lowest-seq checkpoint whose record now has another hash. */
  mismatch?: { checkpoint: SignedCheckpoint; line: number; recordHash: string };
  forged: { line: number; seq?: number; reason: string }[];
  forgedLines: number;
}

interface Scan {
  anchors: Map<string, Anchor>;
  log: CheckpointLogReport;
}

/** Reads the log once, checking each valid checkpoint against the record it names. */
async function scanCheckpoints(q: Queryable, store: CheckpointStore, only?: string): Promise<Scan> {
  const anchors = new Map<string, Anchor>();
  const log: CheckpointLogReport = {
    location: store.location,
    lines: 0,
    unreadable: [],
    unreadable_lines: 0,
    warnings: [],
  };
  const anchorOf = (projectId: string) => {
    let anchor = anchors.get(projectId);
    if (!anchor) {
      anchor = { forged: [], forgedLines: 0 };
      anchors.set(projectId, anchor);
    }
    return anchor;
  };
  let lookups: { checkpoint: SignedCheckpoint; line: number }[] = [];
  const lookUp = async () => {
    if (lookups.length === 0) return;
    const batch = lookups;
    lookups = [];
    const { rows } = await q.query<{ project_id: string; seq: number; hash: string }>(
      `SELECT r.project_id, r.seq, r.hash
         FROM unnest($1::text[], $2::bigint[]) AS c (project_id, seq)
         JOIN audit_records r ON r.project_id = c.project_id AND r.seq = c.seq`,
      [batch.map((l) => l.checkpoint.project_id), batch.map((l) => l.checkpoint.seq)],
    );
    const stored = new Map(rows.map((r) => [`${r.seq} ${r.project_id}`, r.hash]));
    for (const { checkpoint, line } of batch) {
      // A missing record is not decided here: the chain check or the newest checkpoint finds it.
      const recordHash = stored.get(`${checkpoint.seq} ${checkpoint.project_id}`);
      if (recordHash === undefined || recordHash === checkpoint.hash) continue;
      const anchor = anchorOf(checkpoint.project_id);
      if (!anchor.mismatch || checkpoint.seq < anchor.mismatch.checkpoint.seq) {
        anchor.mismatch = { checkpoint, line, recordHash };
      }
    }
  };
  for await (const entry of readLog(store)) {
    if (entry.kind === 'torn') {
      log.warnings.push(
        `line ${entry.line} of ${store.location} is incomplete (${entry.bytes} bytes, a write cut short ` +
          'by a crash, never acknowledged): skipped',
      );
      continue;
    }
    log.lines++;
    if (entry.kind === 'unreadable') {
      log.unreadable_lines++;
      if (log.unreadable.length < MAX_LISTED) log.unreadable.push({ line: entry.line, reason: entry.reason });
      continue;
    }
    const projectId = entry.kind === 'valid' ? entry.checkpoint.project_id : entry.project_id;
    if (only !== undefined && projectId !== only) continue;
    const anchor = anchorOf(projectId);
    if (entry.kind === 'forged') {
      anchor.forgedLines++;
      if (anchor.forged.length < MAX_LISTED) {
        anchor.forged.push({
          line: entry.line,
          reason: entry.reason,
          ...(entry.seq ? { seq: entry.seq } : {}),
        });
      }
      continue;
    }
    const { checkpoint } = entry;
    if (!anchor.latest || checkpoint.seq >= anchor.latest.seq) anchor.latest = checkpoint;
    lookups.push({ checkpoint, line: entry.line });
    if (lookups.length >= LOOKUP_BATCH) await lookUp();
  }
  await lookUp();
  return { anchors, log };
}

/** The log that cannot be read at all is an unavailable store (503), not a verdict on any chain. */
async function* readLog(store: CheckpointStore): AsyncGenerator<CheckpointEntry> {
  const entries = store.read()[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<CheckpointEntry>;
    try {
      next = await entries.next();
    } catch (err) {
      throw new BackendUnavailableError('audit checkpoint log', 5, { cause: err });
    }
    if (next.done) return;
    yield next.value;
  }
}

const short = (hash: string) => hash.slice(0, 12);
const refOf = (c: SignedCheckpoint): CheckpointRef => ({ seq: c.seq, hash: c.hash, at: c.at });

async function verifyProject(
  q: Queryable,
  projectId: string,
  anchor: Anchor | undefined,
  log: CheckpointLogReport,
  options: { logProblems: boolean },
): Promise<ProjectVerification> {
  // After the scan: the database can only be ahead of what the log said a moment ago.
  const chain = await verifyAudit(q, projectId);
  const lastSeq = await lastAuditSeq(q, projectId);
  const problems: ChainProblem[] = [];
  if (!chain.ok) {
    problems.push({
      code: chain.code ?? 'record_missing',
      reason: chain.reason ?? 'the chain is broken',
      ...(chain.broken_at_seq === undefined ? {} : { broken_at_seq: chain.broken_at_seq }),
    });
  }
  const latest = anchor?.latest;
  let missing: { from: number; to: number } | undefined;
  if (latest && lastSeq < latest.seq) {
    missing = { from: lastSeq + 1, to: latest.seq };
    const range =
      missing.from === missing.to ? `record ${missing.from} is` : `records ${missing.from}-${missing.to} are`;
    const held =
      lastSeq === 0
        ? 'the database holds no record of this project'
        : `the database chain ends at seq ${lastSeq}`;
    problems.push({
      code: 'behind_checkpoint',
      broken_at_seq: missing.from,
      reason: `${range} missing: ${held}, but a checkpoint signed at ${latest.at} says it had reached seq ${latest.seq}`,
    });
  }
  if (anchor?.mismatch) {
    const { checkpoint, line, recordHash } = anchor.mismatch;
    problems.push({
      code: 'checkpoint_mismatch',
      broken_at_seq: checkpoint.seq,
      reason:
        `record ${checkpoint.seq} is not the one checkpointed at ${checkpoint.at} (line ${line}): hash ` +
        `${short(recordHash)}… in the database, ${short(checkpoint.hash)}… in the checkpoint; the chain was ` +
        `rewritten from seq ${checkpoint.seq} at the latest`,
    });
  }
  if (anchor && anchor.forgedLines > 0) {
    const first = anchor.forged[0]!;
    const more = anchor.forgedLines > 1 ? ` (${anchor.forgedLines - 1} more such lines)` : '';
    problems.push({
      code: 'checkpoint_forged',
      ...(first.seq === undefined ? {} : { broken_at_seq: first.seq }),
      reason:
        `line ${first.line} of the checkpoint log names this project` +
        `${first.seq === undefined ? '' : ` at seq ${first.seq}`} but cannot be trusted: ${first.reason}${more}`,
    });
  }
  if (options.logProblems && log.unreadable_lines > 0) {
    const first = log.unreadable[0]!;
    problems.push({
      code: 'checkpoint_log_unreadable',
      reason:
        `${log.unreadable_lines} line(s) of the checkpoint log cannot be read (line ${first.line}: ${first.reason}); ` +
        'any of them may have been a checkpoint of this project',
    });
  }
  // The earliest break first; problems without a seq last (sort is stable).
  problems.sort((a, b) => (a.broken_at_seq ?? Infinity) - (b.broken_at_seq ?? Infinity));
  const result: ProjectVerification = {
    project_id: projectId,
    ok: problems.length === 0,
    checked: chain.checked,
  };
  const first = problems[0];
  if (first) {
    if (first.broken_at_seq !== undefined) result.broken_at_seq = first.broken_at_seq;
    result.code = first.code;
    result.reason = first.reason;
  }
  result.checkpoint = latest ? refOf(latest) : null;
  if (missing) {
    result.missing_from_seq = missing.from;
    result.missing_to_seq = missing.to;
  }
  if (first) result.problems = problems;
  return result;
}

/** One project, held against the checkpoint log (GET /internal/v1/audit/verify?project_id=). */
export async function verifyAnchoredProject(
  q: Queryable,
  store: CheckpointStore,
  projectId: string,
): Promise<ProjectVerification> {
  const { anchors, log } = await scanCheckpoints(q, store, projectId);
  // Unreadable lines may have been this project's, so they fail it: nothing else can.
  const result = await verifyProject(q, projectId, anchors.get(projectId), log, { logProblems: true });
  if (log.warnings.length > 0) result.warnings = log.warnings;
  return result;
}

/**
 * Every project the database or the log knows of: chain heads, records (a deleted head must not
 * hide a chain) and checkpoints (a deleted chain must not hide its project).
 */
export async function verifyAnchoredAll(q: Queryable, store: CheckpointStore): Promise<AuditVerification> {
  const { anchors, log } = await scanCheckpoints(q, store);
  const { rows } = await q.query<{ project_id: string }>(
    'SELECT project_id FROM audit_chain_heads UNION SELECT DISTINCT project_id FROM audit_records',
  );
  const ids = [...new Set([...rows.map((r) => r.project_id), ...anchors.keys()])].sort();
  const projects: ProjectVerification[] = [];
  for (const id of ids) {
    projects.push(await verifyProject(q, id, anchors.get(id), log, { logProblems: false }));
  }
  return {
    ok: log.unreadable_lines === 0 && projects.every((p) => p.ok),
    projects,
    checkpoint_log: log,
  };
}

/** Security events for operators: every broken chain, unreadable log lines, skipped lines. */
export function logVerification(logger: Logger, checked: AuditVerification | ProjectVerification): void {
  const projects = 'projects' in checked ? checked.projects : [checked];
  for (const p of projects) {
    if (p.ok) continue;
    logger.warn(
      { event: 'audit_chain_broken', project_id: p.project_id, code: p.code, broken_at_seq: p.broken_at_seq },
      p.reason ?? 'audit chain broken',
    );
  }
  const log = 'projects' in checked ? checked.checkpoint_log : undefined;
  if (log && log.unreadable_lines > 0) {
    logger.warn(
      { event: 'audit_checkpoint_log_unreadable', location: log.location, lines: log.unreadable_lines },
      'lines of the audit checkpoint log cannot be read',
    );
  }
  const warnings = log ? log.warnings : (checked as ProjectVerification).warnings;
  for (const warning of warnings ?? []) logger.warn({ event: 'audit_checkpoint_log_skipped' }, warning);
}

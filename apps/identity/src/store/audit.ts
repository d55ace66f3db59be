import {
  type AuditEntry,
  type ChainHead,
  type ChainVerification,
  ChainVerifier,
  GENESIS_HASH,
  hashRecord,
  type StoredAuditRecord,
} from '@svc/audit';
import type { Postgres, Queryable } from '@svc/postgres';

interface AuditRow {
  project_id: string;
  seq: number;
  id: string;
  at: string;
  token_id: string | null;
  user_id: string | null;
  org_id: string | null;
  tool: string;
  transport: AuditEntry['transport'];
  status: AuditEntry['status'];
  duration_ms: number;
  request_id: string;
  params: string | null;
  prev_hash: string;
  hash: string;
}

// `params` is kept as JSON text, not jsonb: jsonb refuses some valid JSON strings (\u0000), and an
// audit write must never fail because of what a caller typed. The hash is over canonical JSON, so
// key order does not matter either way.
function toStored(row: AuditRow): StoredAuditRecord {
  const { params, ...rest } = row;
  return { ...rest, params: params === null ? undefined : JSON.parse(params) };
}

const COLUMNS = 15;
/** Rows per INSERT: 15 parameters each, far below PostgreSQL's 65535. */
const INSERT_ROWS = 500;

/** Where a project's chain ends after an append: what its checkpoint anchors. */
export interface AppendedHead {
  project_id: string;
  seq: number;
  hash: string;
}

/**
 * The rows of `entries` chained on after (`seq`, `prev`), skipping ids in `skip` (already stored,
 * or repeated in the batch), and where the chain ends after them.
 */
function chainRows(
  projectId: string,
  entries: AuditEntry[],
  seq: number,
  prev: string,
  skip: Set<string>,
): { rows: unknown[][]; seq: number; hash: string } {
  const rows: unknown[][] = [];
  for (const entry of entries) {
    if (skip.has(entry.id)) continue;
    skip.add(entry.id);
    seq += 1;
    const hash = hashRecord(prev, entry, seq);
    rows.push([
      projectId,
      seq,
      entry.id,
      entry.at,
      entry.token_id,
      entry.user_id,
      entry.org_id,
      entry.tool,
      entry.transport,
      entry.status,
      entry.duration_ms,
      entry.request_id,
      entry.params === undefined ? null : JSON.stringify(entry.params),
      prev,
      hash,
    ]);
    prev = hash;
  }
  return { rows, seq, hash: prev };
}

/**
 * Where this process last saw each project's chain end: the head its own last append committed.
 * A hint, never trusted: an append that starts from it moves the head only if the head is still
 * there (another process, or a rolled-back write, may have moved it), in the same statement.
 */
export type KnownHeads = Map<string, { seq: number; hash: string }>;

/** Projects a KnownHeads keeps at most; past it, it starts over (each project then pays one lock). */
const KNOWN_HEADS_MAX = 10_000;

function remember(known: KnownHeads | undefined, heads: readonly AppendedHead[]): void {
  if (!known) return;
  if (known.size + heads.length > KNOWN_HEADS_MAX) known.clear();
  for (const head of heads) known.set(head.project_id, { seq: head.seq, hash: head.hash });
}

/** An append from a known head found the head elsewhere, or a record already stored. */
class KnownHeadMissed extends Error {}

/** Parameter casts of a row in a VALUES list (no target column there to type it). */
const ROW_CASTS = ['', '::bigint', '::uuid', '', '', '', '', '', '', '', '::bigint', '', '', '', ''];

/**
 * The common case in one statement, where appendProject takes two: the records of a project whose
 * head this process knows. The head moves first (taking its row lock, as appendProject's first
 * statement does, so writers still queue in one order) and only from where we knew it; the
 * records go in only if it moved. The statement is whole by itself, so a batch of one project
 * needs no transaction around it (BEGIN and COMMIT were two of its three round trips): a head
 * found elsewhere changes nothing and answers 0, and a head moved for records of which some were
 * stored before (a retried request) fails the statement on purpose, which undoes it whole.
 * Either way KnownHeadMissed sends the caller to the locking path.
 */
async function appendFromKnownHead(
  tx: Queryable,
  projectId: string,
  entries: AuditEntry[],
  known: { seq: number; hash: string },
): Promise<{ written: number; head: AppendedHead }> {
  const { rows, seq, hash } = chainRows(projectId, entries, known.seq, known.hash, new Set());
  const params: unknown[] = [seq, hash, projectId, known.seq, known.hash];
  const values = rows
    .map((row) => {
      const first = params.length;
      params.push(...row);
      return `(${row.map((_, c) => `$${first + c + 1}${ROW_CASTS[c]}`).join(', ')})`;
    })
    .join(', ');
  params.push(rows.length);
  // `x / 0` on a count, not a constant: the planner cannot fold it, so it fails only when reached.
  const { rows: answer } = await tx.query<{ appended: number | string }>(
    `WITH moved AS (
       UPDATE audit_chain_heads SET last_seq = $1, last_hash = $2
       WHERE project_id = $3 AND last_seq = $4 AND last_hash = $5 RETURNING 1),
     appended AS (
       INSERT INTO audit_records (project_id, seq, id, at, token_id, user_id, org_id, tool, transport,
                                  status, duration_ms, request_id, params, prev_hash, hash)
       SELECT * FROM (VALUES ${values}) AS fresh WHERE EXISTS (SELECT 1 FROM moved)
       ON CONFLICT (id) DO NOTHING RETURNING 1)
     SELECT CASE
       WHEN NOT EXISTS (SELECT 1 FROM moved) THEN 0
       WHEN (SELECT count(*) FROM appended) = $${params.length} THEN 1
       ELSE (SELECT count(*) FROM appended) / 0
     END AS appended`,
    params,
  );
  if (Number(answer[0]?.appended) !== 1) throw new KnownHeadMissed();
  return { written: rows.length, head: { project_id: projectId, seq, hash } };
}

/** Each project's records appended in turn on `q` (one transaction): how many went in, and each head. */
async function appendEach(
  q: Queryable,
  projects: readonly string[],
  appendOne: (q: Queryable, projectId: string) => Promise<{ written: number; head: AppendedHead }>,
): Promise<{ written: number; heads: AppendedHead[] }> {
  let written = 0;
  const heads: AppendedHead[] = [];
  for (const projectId of projects) {
    const appended = await appendOne(q, projectId);
    written += appended.written;
    heads.push(appended.head);
  }
  return { written, heads };
}

/**
 * A batch whose every project's head this process knows: one project (the common case) is one
 * statement with no transaction around it; more take one statement each, in one transaction, so a
 * miss in any of them undoes them all.
 */
async function appendFromKnownHeads(
  db: Postgres,
  projects: readonly string[],
  byProject: ReadonlyMap<string, AuditEntry[]>,
  known: KnownHeads,
): Promise<{ written: number; heads: AppendedHead[] }> {
  const appendOne = async (q: Queryable, projectId: string) =>
    appendFromKnownHead(q, projectId, byProject.get(projectId)!, known.get(projectId)!);
  if (projects.length === 1) {
    const one = await appendOne(db, projects[0]!);
    return { written: one.written, heads: [one.head] };
  }
  return db.transaction((tx) => appendEach(tx, projects, appendOne));
}

/**
 * An append that assumed none of its records was stored met one that was (a retried request):
 * its transaction is rolled back and the append runs again, checking first.
 */
class StoredBefore extends Error {}

/**
 * `assumeNew`: the common case, a request seen for the first time, skips the look for stored ids
 * (a statement on the store for every tool call); should one be stored after all, its INSERT
 * skips it, the head is not moved, and StoredBefore rolls the whole append back.
 */
async function appendProject(
  tx: Queryable,
  projectId: string,
  entries: AuditEntry[],
  assumeNew: boolean,
): Promise<{ written: number; head: AppendedHead }> {
  // The chain head row is the per-project lock: concurrent writers of one project queue here so
  // seq and prev_hash are never handed out twice; other projects are unaffected. One statement
  // creates the head of a new project or locks the existing one (the no-op update takes the row
  // lock) and answers where the chain ends.
  const { rows } = await tx.query<{ last_seq: number; last_hash: string }>(
    `INSERT INTO audit_chain_heads (project_id, last_seq, last_hash) VALUES ($1, 0, $2)
     ON CONFLICT (project_id) DO UPDATE SET last_seq = audit_chain_heads.last_seq
     RETURNING last_seq, last_hash`,
    [projectId, GENESIS_HASH],
  );
  let { last_seq: seq, last_hash: prev } = rows[0]!;
  // A retried request must not append its records twice: ids already stored are skipped.
  const existing = assumeNew
    ? { rows: [] }
    : await tx.query<{ id: string }>('SELECT id::text AS id FROM audit_records WHERE id = ANY ($1::uuid[])', [
        entries.map((e) => e.id),
      ]);
  const stored = new Set(existing.rows.map((r) => r.id));
  const chained = chainRows(projectId, entries, seq, prev, stored);
  const fresh = chained.rows;
  seq = chained.seq;
  prev = chained.hash;
  // A batch is a few multi-row INSERTs, not one statement per record. The last one moves the
  // chain head in the same statement, and only when every row went in: an append arrives per tool
  // call (grouped by the gateway), and each statement on the store is CPU a call. Nothing new
  // leaves the head where it was.
  for (let i = 0; i < fresh.length; i += INSERT_ROWS) {
    const chunk = fresh.slice(i, i + INSERT_ROWS);
    const values = chunk
      .map((_, r) => `(${Array.from({ length: COLUMNS }, (_, c) => `$${r * COLUMNS + c + 1}`).join(', ')})`)
      .join(', ');
    const insert = `INSERT INTO audit_records (project_id, seq, id, at, token_id, user_id, org_id, tool, transport,
                                  status, duration_ms, request_id, params, prev_hash, hash)
       VALUES ${values} ON CONFLICT (id) DO NOTHING RETURNING 1`;
    const last = i + INSERT_ROWS >= fresh.length;
    const head = chunk.length * COLUMNS;
    const { rows: inserted } = last
      ? await tx.query(
          `WITH appended AS (${insert})
           UPDATE audit_chain_heads SET last_seq = $${head + 2}, last_hash = $${head + 3}
           WHERE project_id = $${head + 1} AND (SELECT count(*) FROM appended) = $${head + 4}
           RETURNING 1`,
          [...chunk.flat(), projectId, seq, prev, chunk.length],
        )
      : await tx.query(insert, chunk.flat());
    if (inserted.length !== (last ? 1 : chunk.length)) {
      if (assumeNew) throw new StoredBefore();
      // Checked under the head's lock, and still there: never expected; nothing is committed.
      throw new Error(`audit append of ${projectId}: a record appeared while the chain head was locked`);
    }
  }
  return { written: fresh.length, head: { project_id: projectId, seq, hash: prev } };
}

/**
 * Appends the entries of one request in one transaction: all of them become durable, or none.
 * Projects are locked in sorted order so two multi-project batches cannot deadlock.
 * Returns how many were newly written (ids already stored are skipped) and, per project touched,
 * where its chain ends after the commit (also when nothing new was written: a retried request
 * re-anchors a head whose checkpoint may have been lost).
 */
export async function appendAudit(
  db: Postgres,
  entries: AuditEntry[],
  known?: KnownHeads,
): Promise<{ written: number; heads: AppendedHead[] }> {
  const byProject = new Map<string, AuditEntry[]>();
  for (const entry of entries) {
    const list = byProject.get(entry.project_id) ?? [];
    list.push(entry);
    byProject.set(entry.project_id, list);
  }
  const projects = [...byProject.keys()].sort();
  const fromKnown =
    known &&
    projects.every((p) => known.has(p) && byProject.get(p)!.length <= INSERT_ROWS) &&
    entries.length === new Set(entries.map((e) => e.id)).size;
  if (fromKnown) {
    try {
      const result = await appendFromKnownHeads(db, projects, byProject, known);
      remember(known, result.heads);
      return result;
    } catch {
      // Moved elsewhere, a retried request, or a failure: the locking path below decides, and
      // fails on its own if the store does.
      for (const p of projects) known.delete(p);
    }
  }
  const append = (assumeNew: boolean) =>
    db.transaction((tx) =>
      appendEach(tx, projects, (q, projectId) =>
        appendProject(q, projectId, byProject.get(projectId)!, assumeNew),
      ),
    );
  let result: { written: number; heads: AppendedHead[] };
  try {
    result = await append(true);
  } catch (err) {
    if (!(err instanceof StoredBefore)) throw err;
    result = await append(false);
  }
  remember(known, result.heads);
  return result;
}

const SELECT_RECORDS = `SELECT project_id, seq, id::text AS id, at, token_id, user_id, org_id, tool, transport, status,
  duration_ms, request_id, params, prev_hash, hash FROM audit_records`;

/** Records of a project with seq > afterSeq, oldest first. */
export async function listAudit(
  q: Queryable,
  projectId: string,
  options: { limit: number; afterSeq: number },
): Promise<StoredAuditRecord[]> {
  const { rows } = await q.query<AuditRow>(
    `${SELECT_RECORDS} WHERE project_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [projectId, options.afterSeq, options.limit],
  );
  return rows.map(toStored);
}

/** Records of a project with seq < beforeSeq (all when undefined), newest first: the console's audit page. */
export async function listAuditNewestFirst(
  q: Queryable,
  projectId: string,
  options: { limit: number; beforeSeq?: number },
): Promise<StoredAuditRecord[]> {
  const { rows } = await q.query<AuditRow>(
    `${SELECT_RECORDS} WHERE project_id = $1 AND ($2::bigint IS NULL OR seq < $2) ORDER BY seq DESC LIMIT $3`,
    [projectId, options.beforeSeq ?? null, options.limit],
  );
  return rows.map(toStored);
}

const VERIFY_PAGE = 1000;

async function headOf(q: Queryable, projectId: string): Promise<ChainHead | null> {
  const { rows } = await q.query<{ last_seq: number; last_hash: string }>(
    'SELECT last_seq, last_hash FROM audit_chain_heads WHERE project_id = $1',
    [projectId],
  );
  const head = rows[0];
  return head ? { seq: head.last_seq, hash: head.last_hash } : null;
}

/** The highest seq stored for a project; 0 without records. */
export async function lastAuditSeq(q: Queryable, projectId: string): Promise<number> {
  const { rows } = await q.query<{ last: number | null }>(
    'SELECT max(seq) AS last FROM audit_records WHERE project_id = $1',
    [projectId],
  );
  return rows[0]?.last ?? 0;
}

/**
 * Recomputes a project's chain page by page and checks it ends where the head says. Safe while
 * appends go on: the head is read first and only records up to it are checked (the head and its
 * records commit together, so an untouched chain is complete up to any head read). Records beyond
 * the head are then looked for separately: read before a second look at the head, they can only be
 * there if the head was moved back under them.
 */
export async function verifyAudit(q: Queryable, projectId: string): Promise<ChainVerification> {
  const head = await headOf(q, projectId);
  const verifier = new ChainVerifier();
  let afterSeq = 0;
  for (;;) {
    const limit = head ? Math.min(VERIFY_PAGE, head.seq - afterSeq) : VERIFY_PAGE;
    if (limit <= 0) break;
    const page = await listAudit(q, projectId, { limit, afterSeq });
    if (!verifier.add(page) || page.length < limit) break;
    afterSeq = page[page.length - 1]!.seq;
  }
  const result = verifier.result(head);
  if (!result.ok) return result;
  const last = await lastAuditSeq(q, projectId);
  const headNow = await headOf(q, projectId);
  if (last > 0 && !headNow) {
    return {
      ok: false,
      checked: result.checked,
      code: 'head_missing',
      reason: `the chain head is missing although records up to seq ${last} exist (it was deleted)`,
    };
  }
  if (headNow && last > headNow.seq) {
    return {
      ok: false,
      checked: result.checked,
      broken_at_seq: headNow.seq + 1,
      code: 'head_mismatch',
      reason: `records up to seq ${last} exist beyond the chain head at seq ${headNow.seq} (the head was moved back)`,
    };
  }
  return result;
}

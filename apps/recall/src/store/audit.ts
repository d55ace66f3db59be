import type { Queryable } from '@svc/postgres';
import { holdsNul } from './files';

export type RecallAction = 'trigger' | 'download' | 'view';
export type RecallVia = 'console' | 'mcp' | 'rest' | 'stdio';

export interface RecallAuditEntry {
  action: RecallAction;
  via: RecallVia;
  user_id: string | null;
  token_id: string | null;
  file_id: string | null;
  device_id: string | null;
  target_user_id: string | null;
}

/** Appends one record; resolves once it is committed (callers answer only after). */
export async function appendRecallAudit(q: Queryable, projectId: string, at: Date, e: RecallAuditEntry) {
  await q.query(
    `INSERT INTO recall_audit (project_id, at, action, via, user_id, token_id, file_id, device_id, target_user_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [projectId, at, e.action, e.via, e.user_id, e.token_id, e.file_id, e.device_id, e.target_user_id],
  );
}

export interface AuditRow extends RecallAuditEntry {
  at: Date;
}

export async function listRecallAudit(
  q: Queryable,
  projectId: string,
  filter: { action?: RecallAction; file_id?: string },
  fetch: number,
  offset = 0,
): Promise<AuditRow[]> {
  if (holdsNul(filter.file_id)) return [];
  const where = ['project_id = $1'];
  const params: unknown[] = [projectId];
  if (filter.action !== undefined) {
    params.push(filter.action);
    where.push(`action = $${params.length}`);
  }
  if (filter.file_id !== undefined) {
    params.push(filter.file_id);
    where.push(`file_id = $${params.length}`);
  }
  params.push(fetch, offset);
  const { rows } = await q.query<AuditRow>(
    `SELECT at, action, via, user_id, token_id, file_id, device_id, target_user_id FROM recall_audit
     WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  return rows;
}

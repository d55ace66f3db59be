import type { Queryable } from '@svc/postgres';
import { FIELD_LIMITS, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import type { RecallFile } from '@svc/tools-recall';

export interface FileRow {
  file_id: string;
  project_id: string;
  device_id: string;
  user_id: string | null;
  session_id: string | null;
  file_name: string;
  file_date: string;
  size_bytes: string | number;
  sha256: string;
  key_version: number;
  request_id: string | null;
  uploaded_at: Date;
}

const COLUMNS = `file_id, project_id, device_id, user_id, session_id, file_name,
  to_char(file_date, 'YYYY-MM-DD') AS file_date, size_bytes, sha256, key_version, request_id, uploaded_at`;

export function toRecallFile(row: FileRow): RecallFile {
  return {
    file_id: row.file_id,
    device_id: sanitizeText(row.device_id, FIELD_LIMITS.id),
    user_id: sanitizeOptional(row.user_id),
    session_id: sanitizeOptional(row.session_id),
    file_name: sanitizeText(row.file_name, FIELD_LIMITS.id),
    date: row.file_date,
    size_bytes: Number(row.size_bytes),
    uploaded_at: new Date(row.uploaded_at).toISOString(),
  };
}

export async function insertFile(q: Queryable, row: Omit<FileRow, 'uploaded_at'> & { uploaded_at: Date }) {
  await q.query(
    `INSERT INTO recall_files (file_id, project_id, device_id, user_id, session_id, file_name, file_date,
       size_bytes, sha256, key_version, request_id, uploaded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      row.file_id,
      row.project_id,
      row.device_id,
      row.user_id,
      row.session_id,
      row.file_name,
      row.file_date,
      row.size_bytes,
      row.sha256,
      row.key_version,
      row.request_id,
      row.uploaded_at,
    ],
  );
}

/**
 * PostgreSQL text cannot hold a NUL, so no stored value does (uploads refuse control characters):
 * a filter holding one matches nothing, and is never sent (the server would refuse the query).
 */
export const holdsNul = (value: unknown) => typeof value === 'string' && value.includes('\u0000');

export async function getFile(q: Queryable, projectId: string, fileId: string): Promise<FileRow | undefined> {
  if (holdsNul(projectId) || holdsNul(fileId)) return undefined;
  const { rows } = await q.query<FileRow>(
    `SELECT ${COLUMNS} FROM recall_files WHERE project_id = $1 AND file_id = $2`,
    [projectId, fileId],
  );
  return rows[0];
}

/** A LIKE pattern matching `q`'s characters in order, anything between (backslash escapes). */
export function fuzzyPattern(q: string): string {
  return `%${[...q.toLowerCase()].map((c) => (c === '%' || c === '_' || c === '\\' ? `\\${c}` : c)).join('%')}%`;
}

export interface FileFilter {
  device_id?: string;
  user_id?: string;
  date?: string;
  q?: string;
}

/** Newest upload first; `limit + 1` rows so the caller knows whether more exist. */
export async function listFiles(
  q: Queryable,
  projectId: string,
  filter: FileFilter,
  fetch: number,
  offset = 0,
): Promise<FileRow[]> {
  if (Object.values(filter).some(holdsNul)) return [];
  const where = ['project_id = $1'];
  const params: unknown[] = [projectId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.device_id !== undefined) add('device_id = ?', filter.device_id);
  if (filter.user_id !== undefined) add('user_id = ?', filter.user_id);
  if (filter.date !== undefined) add('file_date = ?', filter.date);
  if (filter.q !== undefined) add("lower(file_name) LIKE ? ESCAPE '\\'", fuzzyPattern(filter.q));
  params.push(fetch, offset);
  const { rows } = await q.query<FileRow>(
    `SELECT ${COLUMNS} FROM recall_files WHERE ${where.join(' AND ')}
     ORDER BY uploaded_at DESC, uploaded_order DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  return rows;
}

/** The file stored with the upload whose bytes hash to `sha256`, if one was. */
export async function fileWithDigest(
  q: Queryable,
  projectId: string,
  sha256: string,
): Promise<string | undefined> {
  const { rows } = await q.query<{ file_id: string }>(
    'SELECT file_id FROM recall_upload_digests WHERE project_id = $1 AND sha256 = $2',
    [projectId, sha256],
  );
  return rows[0]?.file_id;
}

/**
 * Records that `file_id` holds the upload whose bytes hash to `sha256`; false when another file
 * holds them already (the same upload, sent twice at once: the first to commit wins).
 */
export async function claimUploadDigest(
  q: Queryable,
  projectId: string,
  sha256: string,
  fileId: string,
): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO recall_upload_digests (project_id, sha256, file_id) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING file_id`,
    [projectId, sha256, fileId],
  );
  return rows.length > 0;
}

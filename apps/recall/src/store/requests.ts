import type { Queryable } from '@svc/postgres';

export interface RecallRequest {
  request_id: string;
  device_id: string | null;
  user_id: string | null;
  requested_at: Date;
}

export async function insertRequest(
  q: Queryable,
  r: RecallRequest & { project_id: string; requested_by: string },
): Promise<void> {
  await q.query(
    `INSERT INTO recall_requests (request_id, project_id, device_id, user_id, requested_by, requested_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [r.request_id, r.project_id, r.device_id, r.user_id, r.requested_by, r.requested_at],
  );
}

/** Requests not yet answered that name this device, or the user it belongs to; oldest first. */
export async function pendingRequests(
  q: Queryable,
  projectId: string,
  deviceId: string,
  userId: string | undefined,
): Promise<RecallRequest[]> {
  const { rows } = await q.query<RecallRequest>(
    `SELECT request_id, device_id, user_id, requested_at FROM recall_requests
     WHERE project_id = $1 AND fulfilled_at IS NULL AND (device_id = $2 OR ($3::text IS NOT NULL AND user_id = $3))
     ORDER BY requested_at, request_id LIMIT 100`,
    [projectId, deviceId, userId ?? null],
  );
  return rows;
}

/** Marks a pending request of the project answered by a file; false when there is none such. */
export async function fulfillRequest(
  q: Queryable,
  projectId: string,
  requestId: string,
  fileId: string,
  at: Date,
): Promise<boolean> {
  const { rows } = await q.query(
    `UPDATE recall_requests SET fulfilled_at = $4, file_id = $3
     WHERE project_id = $1 AND request_id = $2 AND fulfilled_at IS NULL RETURNING request_id`,
    [projectId, requestId, fileId, at],
  );
  return rows.length > 0;
}

export interface RequestForUpload {
  device_id: string | null;
  user_id: string | null;
  fulfilled_at: Date | null;
}

/** A request of the project as an upload naming it sees it, locked until the transaction ends. */
export async function requestForUpload(
  q: Queryable,
  projectId: string,
  requestId: string,
): Promise<RequestForUpload | undefined> {
  const { rows } = await q.query<RequestForUpload>(
    `SELECT device_id, user_id, fulfilled_at FROM recall_requests
     WHERE project_id = $1 AND request_id = $2 FOR UPDATE`,
    [projectId, requestId],
  );
  return rows[0];
}

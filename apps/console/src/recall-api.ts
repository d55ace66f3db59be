import { BackendUnavailableError, NotFoundError, UserInputError } from '@svc/errors';
import { SessionEndedError } from './identity-api';

// Recall's console side (docs/recall.md): trigger a recall, download a file. Both need a person's
// session (recall asks identity who it is) and land in the recall audit trail there. The tools that
// list files and read entries go through the gateway like any tool call (tool-calls.ts).

export interface RecallApi {
  trigger(
    session: string,
    projectId: string,
    target: { device_id?: string; user_id?: string },
  ): Promise<{ request_id: string; requested_at: string }>;
  /** The file's entries as NDJSON; a file that cannot be read to its end is a UserInputError with the problem. */
  download(session: string, projectId: string, fileId: string): Promise<{ body: string; filename: string }>;
}

export function createRecallApi(options: { recallUrl: string; timeoutMs?: number }): RecallApi {
  const base = options.recallUrl.replace(/\/+$/, '');
  async function call(path: string, init: RequestInit & { session: string }): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${init.session}` },
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch {
      throw new BackendUnavailableError('recall');
    }
    if (res.ok) return res;
    const answer = (await res.json().catch(() => ({}))) as { details?: unknown };
    if (res.status === 401) throw new SessionEndedError();
    // Another org's project, or an org without vis_recall, answers like an unknown one.
    if (res.status === 404)
      throw new NotFoundError('Not found, or recall is not enabled for your organization.');
    if (res.status === 400)
      throw new UserInputError('Recall refused the request.', { details: answer.details });
    throw new BackendUnavailableError('recall');
  }
  const project = (id: string) => `/console/v1/projects/${encodeURIComponent(id)}`;
  return {
    async trigger(session, projectId, target) {
      const res = await call(`${project(projectId)}/recalls`, {
        session,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(target),
      });
      return (await res.json()) as { request_id: string; requested_at: string };
    },
    async download(session, projectId, fileId) {
      const res = await call(`${project(projectId)}/files/${encodeURIComponent(fileId)}/download`, {
        session,
        method: 'GET',
      });
      return { body: await res.text(), filename: `${fileId}.ndjson` };
    },
  };
}

import { sanitizeOptional } from '@svc/tool-kit';
import { logAudit } from '@svc/tools-recall';
import { listRecallAudit } from '../store/audit';
import { listPage, serve } from './recall-call';

/** log.audit: the project's recall audit trail, newest first. */
export const logAuditTool = serve(logAudit, async ({ ctx, projectId, offset }, input) => {
  const rows = await listRecallAudit(ctx.db, projectId, input, input.limit + 1, offset);
  return listPage(
    rows.map((r) => ({
      ...r,
      at: new Date(r.at).toISOString(),
      device_id: sanitizeOptional(r.device_id),
      target_user_id: sanitizeOptional(r.target_user_id),
    })),
    input.limit,
  );
});

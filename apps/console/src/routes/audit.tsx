/** @jsxRuntime automatic @jsxImportSource preact */
import { BackendUnavailableError } from '@svc/errors';
import express, { type Router } from 'express';
import { z } from 'zod';
import type { ConsoleDeps } from '../console-deps';
import { pageContext } from '../page-context';
import { AuditPage, type VerificationView } from '../pages/audit';
import { sendPage } from '../pages/layout';
import { sessionOf } from '../session';

/** Records per page (identity allows up to 500). */
export const AUDIT_PAGE_SIZE = 50;

const auditQuery = z.object({ before_seq: z.coerce.number().int().min(1).optional().catch(undefined) });

/** The audit page (`/audit`): the project's tool-call records, newest first, and their chain verified. */
export function auditRoutes(deps: ConsoleDeps): Router {
  const router = express.Router();

  router.get('/audit', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    const { before_seq: beforeSeq } = auditQuery.parse(req.query);
    const session = sessionOf(res).token;
    const [records, verification] = await Promise.all([
      deps.identity.audit(session, ctx.projectId, { limit: AUDIT_PAGE_SIZE, beforeSeq }),
      verify(session, ctx.projectId),
    ]);
    sendPage(
      res,
      <AuditPage ctx={ctx} records={records} verification={verification} beforeSeq={beforeSeq} />,
    );
  });

  // A verification that cannot be made now (identity's checkpoint log unreadable: 503) does not hide
  // the records, but the page says plainly that they are not verified; anything else fails the page.
  async function verify(session: string, projectId: string): Promise<VerificationView> {
    try {
      return { checked: await deps.identity.verifyAudit(session, projectId) };
    } catch (err) {
      if (!(err instanceof BackendUnavailableError)) throw err;
      deps.logger.warn({ event: 'console_audit_verify_unavailable', project_id: projectId }, 'not verified');
      return { unavailable: 'The hash chain could not be checked right now; reload the page to try again.' };
    }
  }

  return router;
}

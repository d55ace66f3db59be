import { pageOf } from '@svc/tool-kit';
import type { Router } from 'express';
import { logVerification, verifyAnchoredAll, verifyAnchoredProject } from '../../checkpoints/verify';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import { auditListQuery, auditVerifyQuery } from '../../schemas';
import { listAudit } from '../../store/audit';

/** A project's audit records in order (`after_seq` pages on), and the chains checked. */
export function addAuditReadRoutes(router: Router, ctx: IdentityContext): void {
  router.get('/v1/audit', async (req, res) => {
    const query = parseRequest(auditListQuery, req.query);
    const items = await listAudit(ctx.db, query.project_id, {
      limit: query.limit + 1,
      afterSeq: query.after_seq,
    });
    res.json(pageOf(items, query.limit));
  });

  router.get('/v1/audit/verify', async (req, res) => {
    const { project_id } = parseRequest(auditVerifyQuery, req.query);
    const checked =
      project_id === undefined
        ? await verifyAnchoredAll(ctx.db, ctx.checkpoints)
        : await verifyAnchoredProject(ctx.db, ctx.checkpoints, project_id);
    logVerification(ctx.logger, checked);
    res.json(checked);
  });
}

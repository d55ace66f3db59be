import { pageOf } from '@svc/tool-kit';
import type { Router } from 'express';
import { logVerification, verifyAnchoredProject } from '../../checkpoints/verify';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import { consoleAuditQuery } from '../../schemas';
import { listAuditNewestFirst } from '../../store/audit';
import { withNames } from '../../store/names';
import type { SessionHelpers } from './session';

/** A project's tool-call audit trail: its records, and its chain checked. */
export function addAuditRoutes(router: Router, ctx: IdentityContext, s: SessionHelpers): void {
  // Newest first (`before_seq` pages back), each record with who called in words: the person's
  // email and the token's name (looked up, not stored: the chain holds ids only). Ids of another
  // org stay unnamed.
  router.get('/v1/projects/:project_id/audit', async (req, res) => {
    const session = s.sessionOf(res);
    const project = await s.projectOf(session, req.params.project_id);
    const query = parseRequest(consoleAuditQuery, req.query);
    const items = await listAuditNewestFirst(ctx.db, project.project_id, {
      limit: query.limit + 1,
      beforeSeq: query.before_seq,
    });
    const page = pageOf(items, query.limit);
    res.json({ ...page, items: await withNames(ctx.db, session.orgId, page.items) });
  });

  // The hash chain and its signed checkpoints checked end to end, as `svc audit verify` does.
  router.get('/v1/projects/:project_id/audit/verify', async (req, res) => {
    const project = await s.projectOf(s.sessionOf(res), req.params.project_id);
    const checked = await verifyAnchoredProject(ctx.db, ctx.checkpoints, project.project_id);
    logVerification(ctx.logger, checked);
    res.json(checked);
  });
}

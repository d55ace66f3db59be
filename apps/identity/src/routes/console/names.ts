import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import { consoleNamesBody } from '../../schemas';
import { namesInOrg } from '../../store/names';
import { sessionOf } from './session';

/**
 * POST /v1/names: names for ids that records of other services carry (recall's audit trail): one
 * lookup for a page, answering only what belongs to the session's org.
 */
export function addNamesRoute(router: Router, ctx: IdentityContext): void {
  router.post('/v1/names', async (req, res) => {
    const body = parseRequest(consoleNamesBody, req.body);
    res.json(
      await namesInOrg(ctx.db, sessionOf(res).orgId, { userIds: body.user_ids, tokenIds: body.token_ids }),
    );
  });
}

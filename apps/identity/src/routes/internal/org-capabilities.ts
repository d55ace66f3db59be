import { NotFoundError } from '@svc/errors';
import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { enabledCapabilities, getOrg } from '../../store/orgs';

/** GET /v1/orgs/:org_id/capabilities: what an org has switched on. */
export function addOrgCapabilitiesRoute(router: Router, ctx: IdentityContext): void {
  router.get('/v1/orgs/:org_id/capabilities', async (req, res) => {
    const org = await getOrg(ctx.db, req.params.org_id);
    if (!org) throw new NotFoundError('Unknown organization.');
    res.json({ org_id: org.org_id, capabilities: await enabledCapabilities(ctx.db, org.org_id) });
  });
}

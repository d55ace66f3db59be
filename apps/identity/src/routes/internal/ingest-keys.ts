import { NotFoundError } from '@svc/errors';
import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { getIngestKey } from '../../store/ingest-keys';

/** GET /v1/ingest-keys/:key_id: a key with its secret, for the services that check signed ingest. */
export function addIngestKeyRoute(router: Router, ctx: IdentityContext): void {
  router.get('/v1/ingest-keys/:key_id', async (req, res) => {
    const key = await getIngestKey(ctx.db, req.params.key_id);
    if (!key) throw new NotFoundError('Unknown ingest key.');
    res.json({
      key_id: key.key_id,
      project_id: key.project_id,
      secret: key.secret,
      active: key.active,
      allowed_origins: key.allowed_origins,
    });
  });
}

import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import { invalidationAckBody } from '../../schemas';

/**
 * The gateways' token caches (docs/decisions.md, "Token cache"): a stream of invalidations, and
 * the acknowledgements that keep each gateway's lease.
 */
export function addInvalidationRoutes(router: Router, ctx: IdentityContext): void {
  router.get('/v1/invalidations', async (_req, res) => {
    await ctx.invalidations.subscribe(res);
  });

  router.post('/v1/invalidations/ack', async (req, res) => {
    const { subscriber_id, seq } = parseRequest(invalidationAckBody, req.body);
    if (!(await ctx.invalidations.acknowledge(subscriber_id, seq))) {
      // The lease ran out (or never existed): the gateway must subscribe again, cache empty.
      res.status(410).json({ error: 'lease_expired', message: 'Subscribe again.' });
      return;
    }
    res.json({ lease_ms: ctx.invalidations.timing.leaseMs });
  });
}

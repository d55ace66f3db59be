import { createHash } from 'node:crypto';
import { UserInputError } from '@svc/errors';
import { INTERNAL_PROJECT_ID, requireInternalSecret } from '@svc/tool-server/internal-auth';
import express, { type Router } from 'express';
import { readJsonBody } from '../ingest/json/json-body';
import type { BatchWriter } from '../ingest/store/write-batch';
import { validateBatchInSlices } from '../ingest/validate/validate-batch';
import { defaultSlicing, jsonSlicesOf } from '../ingest/work-slices';
import type { Retention } from '../storage/migrations';

export interface InternalIngestRouterDeps {
  internalSecret: string;
  write: BatchWriter;
  now: () => number;
  retention?: Retention;
  /** Largest accepted body; beyond it 413. */
  maxBodyBytes: number;
}

/**
 * POST /internal/v1/projects/:project_id/ingest (docs/internal-api.md): the batch of
 * /ingest/v1/batch, from the stack's own services (their spans, SVC_SELF_TRACE_PROJECT). They hold
 * the internal secret, not an ingest key, so the project comes from the path, as on the internal
 * tool route. Validated whole and written by the same writer as every ingest route. A retried body
 * (the exporter retries timeouts) is stored once: its hash is the inserts' deduplication token.
 */
export function createInternalIngestRouter(deps: InternalIngestRouterDeps): Router {
  const router = express.Router();
  router.post(
    '/internal/v1/projects/:project_id/ingest',
    requireInternalSecret(deps.internalSecret),
    express.raw({ type: () => true, limit: deps.maxBodyBytes }),
    async (req, res, next) => {
      try {
        const projectId = String(req.params.project_id);
        if (!INTERNAL_PROJECT_ID.test(projectId)) throw new UserInputError('Invalid project id.');
        const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const slices = defaultSlicing();
        const batch = await validateBatchInSlices(
          await readJsonBody(body, jsonSlicesOf(slices)),
          { now: deps.now(), ...(deps.retention ? { retention: deps.retention } : {}) },
          { slices: slices.records },
        );
        const hash = createHash('sha256').update(body).digest('hex');
        const accepted = await deps.write(
          batch,
          projectId,
          (table) => `internal:${projectId}:${hash}:${table}`,
        );
        res.status(200).json({ accepted });
      } catch (err) {
        next(err);
      }
    },
  );
  return router;
}

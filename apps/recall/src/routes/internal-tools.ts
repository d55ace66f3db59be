import { UserInputError } from '@svc/errors';
import { CursorSeal } from '@svc/tool-server/cursor';
import { INTERNAL_PROJECT_ID } from '@svc/tool-server/internal-auth';
import { internalToolRoutes } from '@svc/tool-server/internal-tools';
import express, { type Router } from 'express';
import type { RecallContext } from '../context';
import { callerGoneAs4xx, recallAdmission, recallToolset } from '../tools/recall-tools';

/**
 * POST /internal/v1/projects/:project_id/tools/:tool (docs/internal-api.md): the three recall
 * tools, through the shared internal tool route; and the key rotation of a project.
 */
export function internalToolsRouter(ctx: RecallContext, internalSecret: string): Router {
  const router = express.Router();
  router.use(
    internalToolRoutes({
      tools: recallToolset,
      admit: recallAdmission(ctx),
      mapError: callerGoneAs4xx,
      metrics: ctx.metrics,
      counter: 'recall_tool_calls_total',
      cursors: new CursorSeal(internalSecret),
    }),
  );
  // Operators rotate a project's data key (docs/recall.md, "Keys"): new files use the new version,
  // files already stored keep naming theirs and stay readable.
  router.post('/v1/projects/:project_id/keys/rotate', async (req, res) => {
    const projectId = String(req.params.project_id);
    if (!INTERNAL_PROJECT_ID.test(projectId)) throw new UserInputError('Invalid project id.');
    const key = await ctx.keys.rotate(projectId);
    ctx.logger.info({ project_id: projectId, key_version: key.version }, 'recall data key rotated');
    res.status(201).json({ project_id: projectId, key_version: key.version });
  });
  return router;
}

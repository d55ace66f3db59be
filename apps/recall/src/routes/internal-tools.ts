import { NotFoundError, parseInput, UserInputError } from '@svc/tool-kit';
import { callActorOf, INTERNAL_PROJECT_ID } from '@svc/tool-server/internal-auth';
import express, { type Router } from 'express';
import type { RecallContext } from '../context';

import { recallTool } from '../tools/recall-tools';

/**
 * POST /internal/v1/projects/:project_id/tools/:tool (docs/internal-api.md): the three recall
 * tools. Input is validated again with the tool's own schema (the gateway is not the only caller),
 * and so is the answer, before it leaves.
 */
export function internalToolsRouter(ctx: RecallContext): Router {
  const router = express.Router();
  const calls = ctx.metrics.counter('recall_tool_calls_total', 'Recall tool calls by outcome', [
    'tool',
    'outcome',
  ]);
  router.post('/v1/projects/:project_id/tools/:tool', express.json({ limit: '64kb' }), async (req, res) => {
    const name = String(req.params.tool);
    let outcome = 'error';
    try {
      const tool = recallTool(name);
      const projectId = String(req.params.project_id);
      if (!INTERNAL_PROJECT_ID.test(projectId)) throw new UserInputError('Invalid project id.');
      const input = parseInput(tool.definition.input, req.body ?? {}, name);
      const actor = callActorOf((h) => req.get(h));
      const answer = await tool.run({ ctx, projectId, actor, input: input as never });
      res.json(tool.definition.output.parse(answer));
      outcome = 'ok';
    } catch (err) {
      if (err instanceof NotFoundError) outcome = 'unknown_tool';
      else if (err instanceof UserInputError) outcome = 'invalid_input';
      throw err;
    } finally {
      calls.inc({ tool: name.slice(0, 40), outcome });
    }
  });
  // Operators rotate a project's data key (docs/recall.md, keys): new files use the new version,
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

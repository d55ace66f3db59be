import type { ClickHouse } from '@svc/clickhouse';
import type { Metrics } from '@svc/metrics';
import { NotFoundError, parseInput, UserInputError } from '@svc/tool-kit';
import express, { type Router } from 'express';
import type { AnyCoreTool } from '../tools/core-tool';
import { requireInternalSecret } from './internal-auth';

export interface ToolsRouterDeps {
  ch: ClickHouse;
  tools: ReadonlyMap<string, AnyCoreTool>;
  internalSecret: string;
  metrics: Metrics;
  now: () => number;
}

const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** POST /internal/v1/projects/:project_id/tools/:tool (docs/internal-api.md). */
export function createToolsRouter(deps: ToolsRouterDeps): Router {
  const router = express.Router();
  const calls = deps.metrics.counter('core_tool_calls_total', 'Core tool calls by outcome', [
    'tool',
    'outcome',
  ]);
  router.post(
    '/internal/v1/projects/:project_id/tools/:tool',
    requireInternalSecret(deps.internalSecret),
    express.json({ limit: '256kb' }),
    async (req, res, next) => {
      const toolName = String(req.params.tool);
      const tool = deps.tools.get(toolName);
      try {
        if (!tool) throw new NotFoundError('Unknown tool.');
        const projectId = String(req.params.project_id);
        if (!PROJECT_ID.test(projectId)) throw new UserInputError('Invalid project id.');
        // Validated again here with the tool's own schema: the gateway is not the only caller.
        const input = parseInput(tool.input, req.body ?? {}, tool.name);
        const abort = new AbortController();
        res.on('close', () => abort.abort());
        const result = await tool.run(
          { ch: deps.ch, projectId, now: deps.now(), signal: abort.signal },
          input,
        );
        calls.inc({ tool: tool.name, outcome: 'ok' });
        res.status(200).json(result);
      } catch (err) {
        calls.inc({ tool: tool ? tool.name : '(unknown)', outcome: 'error' });
        next(err);
      }
    },
  );
  return router;
}

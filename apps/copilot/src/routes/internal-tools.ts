import { randomUUID } from 'node:crypto';
import type { AnyTool } from '@svc/tool-kit';
import { NotFoundError, parseInput, UserInputError } from '@svc/tool-kit';
import { callActorOf, INTERNAL_PROJECT_ID } from '@svc/tool-server/internal-auth';
import { verifyRun, verifyRunSession } from '@svc/tools-verify';
import express, { type Router } from 'express';
import type { CallScope } from '../checks/evidence';
import type { CopilotContext } from '../context';
import { runVerify } from '../tools/verify-run';
import { runVerifySession } from '../tools/verify-run-session';

type Run = (ctx: CopilotContext, scope: CallScope, input: never) => Promise<unknown>;
const TOOLS: ReadonlyMap<string, { definition: AnyTool; run: Run }> = new Map([
  [verifyRun.name, { definition: verifyRun, run: runVerify as Run }],
  [verifyRunSession.name, { definition: verifyRunSession, run: runVerifySession as Run }],
]);

/**
 * POST /internal/v1/projects/:project_id/tools/verify.run|verify.run_session (docs/internal-api.md).
 * Input is validated again with the tool's own schema (the gateway is not the only caller), and so
 * is the answer, before it leaves. A caller that goes away cancels the core calls still to come.
 */
export function internalToolsRouter(ctx: CopilotContext): Router {
  const router = express.Router();
  const calls = ctx.metrics.counter('copilot_tool_calls_total', 'Verify tool calls by tool and verdict', [
    'tool',
    'outcome',
  ]);
  router.post('/v1/projects/:project_id/tools/:tool', express.json({ limit: '64kb' }), async (req, res) => {
    const name = String(req.params.tool);
    let outcome = 'error';
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    try {
      const tool = TOOLS.get(name);
      if (!tool) throw new NotFoundError(`Unknown tool: ${name.slice(0, 80)}`);
      const projectId = String(req.params.project_id);
      if (!INTERNAL_PROJECT_ID.test(projectId)) throw new UserInputError('Invalid project id.');
      const input = parseInput(tool.definition.input, req.body ?? {}, name);
      const scope: CallScope = {
        projectId,
        requestId: req.get('x-request-id') ?? randomUUID(),
        actor: callActorOf((h) => req.get(h)),
        signal: gone.signal,
      };
      const answer = tool.definition.output.parse(await tool.run(ctx, scope, input as never)) as {
        verdict: string;
      };
      res.json(answer);
      outcome = answer.verdict;
    } catch (err) {
      if (err instanceof NotFoundError) outcome = 'unknown_tool';
      else if (err instanceof UserInputError) outcome = 'invalid_input';
      throw err;
    } finally {
      calls.inc({ tool: name.slice(0, 40), outcome });
    }
  });
  return router;
}

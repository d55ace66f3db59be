import { type InternalTool, internalToolRoutes } from '@svc/tool-server/internal-tools';
import { verifyRun, verifyRunSession } from '@svc/tools-verify';
import type { Router } from 'express';
import type { CopilotContext } from '../context';
import { runVerify } from '../tools/verify-run';
import { runVerifySession } from '../tools/verify-run-session';

/**
 * POST /internal/v1/projects/:project_id/tools/verify.run|verify.run_session (docs/internal-api.md),
 * through the shared internal tool route. Calls are counted by verdict. A caller that goes away
 * cancels the core calls still to come.
 */
export function internalToolsRouter(ctx: CopilotContext): Router {
  const tools: InternalTool[] = [
    { definition: verifyRun, run: (call) => runVerify(ctx, call, call.input as never) },
    {
      definition: verifyRunSession,
      run: (call) => runVerifySession(ctx, call, call.input as never),
    },
  ];
  return internalToolRoutes({
    tools,
    metrics: ctx.metrics,
    counter: 'copilot_tool_calls_total',
    outcomeOf: (answer) => (answer as { verdict: string }).verdict,
  });
}

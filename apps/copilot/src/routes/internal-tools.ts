import { internalToolRoutes } from '@svc/tool-server/internal-tools';
import type { Router } from 'express';
import type { CopilotContext } from '../context';
import { copilotAdmission, copilotToolset } from '../tools/verify-tools';

/**
 * POST /internal/v1/projects/:project_id/tools/verify.run|verify.run_session (docs/internal-api.md),
 * through the shared internal tool route. Calls are counted by verdict. A caller that goes away
 * cancels the core calls still to come.
 */
export function internalToolsRouter(ctx: CopilotContext): Router {
  return internalToolRoutes({
    tools: copilotToolset,
    admit: copilotAdmission(ctx),
    metrics: ctx.metrics,
    counter: 'copilot_tool_calls_total',
    outcomeOf: (answer) => (answer as { verdict: string }).verdict,
  });
}

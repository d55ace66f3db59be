import type { Admit } from '@svc/tool-server/internal-tools';
import type { AnyServedTool } from '@svc/tool-server/serve';
import type { CopilotContext } from '../context';
import type { CopilotCall } from './copilot-call';
import { verifyRunTool } from './verify-run';
import { verifyRunSessionTool } from './verify-run-session';

/** Every tool copilot serves, each bound through `serve` in a file of its own. */
export const copilotToolset: readonly AnyServedTool<CopilotCall>[] = [verifyRunTool, verifyRunSessionTool];

/** A verification calls the core for its caller: a call must name one (X-Svc-Actor). */
export function copilotAdmission(ctx: CopilotContext): Admit<CopilotCall> {
  return (call, _tool, answer) =>
    answer({
      ctx,
      scope: {
        projectId: call.projectId,
        requestId: call.requestId,
        actor: call.actor(),
        signal: call.signal,
      },
    });
}

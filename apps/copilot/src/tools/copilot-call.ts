import { serveWith } from '@svc/tool-server/serve';
import type { CallScope } from '../checks/evidence';
import type { CopilotContext } from '../context';

/** What a verify tool gets with its input: the service, and the call it checks evidence for. */
export interface CopilotCall {
  ctx: CopilotContext;
  scope: CallScope;
}

/** Binds a verify tool's handler to its published definition (from @svc/tools-verify). */
export const serve = serveWith<CopilotCall>();

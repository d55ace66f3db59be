import type { AnyTool } from '@svc/tool-kit';
import { logTools } from '@svc/tools-logs';

/**
 * Every tool the stack implements. Transports register these; what a caller sees is then
 * narrowed by deployment, health and the org's capabilities (ToolExecutor.isVisible).
 */
export const allTools: readonly AnyTool[] = [...logTools];

import type { AnyTool } from '@svc/tool-kit';
import { analyticsTools } from '@svc/tools-analytics';
import { apmTools } from '@svc/tools-apm';
import { crashTools } from '@svc/tools-crash';
import { logsTools } from '@svc/tools-logs';
import { recallTools } from '@svc/tools-recall';
import { traceTools } from '@svc/tools-trace';
import { usersTools } from '@svc/tools-users';
import { verifyTools } from '@svc/tools-verify';

/**
 * Every tool the stack implements. Transports register these; what a caller sees is then
 * narrowed by deployment, health and the org's capabilities (ToolExecutor.isVisible).
 */
export const allTools: readonly AnyTool[] = [
  ...logsTools,
  ...crashTools,
  ...apmTools,
  ...traceTools,
  ...usersTools,
  ...analyticsTools,
  ...recallTools,
  ...verifyTools,
];

/**
 * The groups a client may choose to load (`/mcp?toolsets=crash,logs`, `X-MCP-Toolsets`,
 * `SVC_MCP_TOOLSETS` for stdio): one per tools-<group> package, named after it. Together they are
 * allTools, each tool in exactly one (a test checks).
 */
export const catalogToolsets: Readonly<Record<string, readonly AnyTool[]>> = {
  logs: logsTools,
  crash: crashTools,
  apm: apmTools,
  trace: traceTools,
  users: usersTools,
  analytics: analyticsTools,
  recall: recallTools,
  verify: verifyTools,
};

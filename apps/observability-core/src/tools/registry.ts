import { ANALYTICS_TOOLS } from './analytics/analytics-tools';
import { cohortsTool } from './analytics/cohorts-tool';
import { dimensionsTool } from './analytics/dimensions';
import { experimentResultsTool } from './analytics/experiment-results';
import { funnelTool } from './analytics/funnel';
import { retentionTool } from './analytics/retention-tool';
import type { AnyCoreTool } from './core-tool';
import { CRASH_QUERY_TOOLS } from './crash/crash-query-tools';
import { SYMBOL_TOOLS } from './crash/symbol-tools';
import { LOG_TOOLS } from './logs/log-tools';
import { USER_TOOLS } from './users/user-tools';

/** Tool groups add their list here, one line each. */
const DEFAULT_CORE_TOOLS: readonly AnyCoreTool[] = [
  ...LOG_TOOLS,
  ...CRASH_QUERY_TOOLS,
  ...SYMBOL_TOOLS,
  ...USER_TOOLS,
  ...ANALYTICS_TOOLS,
  funnelTool,
  dimensionsTool,
  retentionTool,
  cohortsTool,
  experimentResultsTool,
];

/** Every tool the core serves, by name. Tool groups add their list here. */
export function createCoreToolRegistry(
  tools: readonly AnyCoreTool[] = DEFAULT_CORE_TOOLS,
): ReadonlyMap<string, AnyCoreTool> {
  const registry = new Map<string, AnyCoreTool>();
  for (const tool of tools) {
    if (registry.has(tool.name)) throw new Error(`duplicate core tool ${tool.name}`);
    registry.set(tool.name, tool);
  }
  return registry;
}

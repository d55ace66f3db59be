import { analyticsQueries } from './analytics/queries';
import { apmQueries } from './apm/queries';
import type { AnyCoreTool } from './core-tool';
import { crashQueries } from './crash/queries';
import { logsQueries } from './logs/queries';
import { traceQueries } from './trace/queries';
import { usersQueries } from './users/queries';

/** Every tool the core serves: one line per tool group (its folder's queries.ts). */
export const coreQueries: readonly AnyCoreTool[] = [
  ...logsQueries,
  ...crashQueries,
  ...apmQueries,
  ...traceQueries,
  ...usersQueries,
  ...analyticsQueries,
];

/** The core's tools by name; a duplicate name is a programming error caught at start. */
export function createCoreToolRegistry(
  tools: readonly AnyCoreTool[] = coreQueries,
): ReadonlyMap<string, AnyCoreTool> {
  const registry = new Map<string, AnyCoreTool>();
  for (const tool of tools) {
    if (registry.has(tool.name)) throw new Error(`duplicate core tool ${tool.name}`);
    registry.set(tool.name, tool);
  }
  return registry;
}

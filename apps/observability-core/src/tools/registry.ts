import type { AnyCoreTool } from './core-tool';
import { LOG_TOOLS } from './logs/log-tools';

/** Every tool the core serves, by name. Tool groups add their list here. */
export function createCoreToolRegistry(
  tools: readonly AnyCoreTool[] = LOG_TOOLS,
): ReadonlyMap<string, AnyCoreTool> {
  const registry = new Map<string, AnyCoreTool>();
  for (const tool of tools) {
    if (registry.has(tool.name)) throw new Error(`duplicate core tool ${tool.name}`);
    registry.set(tool.name, tool);
  }
  return registry;
}

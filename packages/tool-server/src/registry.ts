import type { AnyTool } from '@svc/tool-kit';

/** The set of tools a process serves. MCP list, REST routes and /openapi.json all come from here. */
export class ToolRegistry {
  readonly #tools = new Map<string, AnyTool>();

  constructor(tools: Iterable<AnyTool>) {
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) throw new Error(`duplicate tool name: ${tool.name}`);
      this.#tools.set(tool.name, tool);
    }
  }

  get(name: string): AnyTool | undefined {
    return this.#tools.get(name);
  }

  list(): AnyTool[] {
    return [...this.#tools.values()];
  }

  get size(): number {
    return this.#tools.size;
  }
}

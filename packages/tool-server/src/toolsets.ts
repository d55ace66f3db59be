import { UserInputError } from '@svc/errors';
import type { AnyTool } from '@svc/tool-kit';

/**
 * The query parameter and header a client chooses toolsets with (`/mcp?toolsets=crash,logs`,
 * `X-MCP-Toolsets: crash,logs`): the header name GitHub's MCP server uses for the same choice, so a
 * client configured for one knows the other. Names are the tool groups' (the tools-<group> packages).
 */
export const TOOLSETS_QUERY = 'toolsets';
export const TOOLSETS_HEADER = 'x-mcp-toolsets';

/**
 * The groups a client chose: tools/list holds only their tools and a call of any other tool is
 * refused naming the toolset it belongs to. No choice at all is the full catalog (no ToolsetChoice).
 */
export interface ToolsetChoice {
  /** The chosen toolsets' names, in the catalog's order. */
  readonly names: readonly string[];
  includes(toolName: string): boolean;
  /** The toolset a tool belongs to, chosen or not (to name it when refusing a call). */
  toolsetOf(toolName: string): string | undefined;
}

/** The tool groups of a catalog, by name (`logs`, `crash`, ...), each with its tools in order. */
export class Toolsets {
  readonly #groups: ReadonlyMap<string, ReadonlySet<string>>;
  readonly #groupOfTool = new Map<string, string>();

  constructor(groups: Readonly<Record<string, readonly AnyTool[]>>) {
    const entries = Object.entries(groups).map(([name, tools]) => {
      for (const tool of tools) this.#groupOfTool.set(tool.name, name);
      return [name, new Set(tools.map((t) => t.name))] as const;
    });
    this.#groups = new Map(entries);
  }

  /** Every toolset's name, in catalog order. */
  get names(): string[] {
    return [...this.#groups.keys()];
  }

  /** The toolset a tool belongs to (none for a tool outside every group). */
  toolsetOf(toolName: string): string | undefined {
    return this.#groupOfTool.get(toolName);
  }

  /**
   * The choice written in comma lists (the query parameter's and the header's values, together:
   * their union). Nothing written, or only blanks: no choice, the full catalog. An unknown name is
   * a 400 that lists the known ones.
   */
  choose(lists: ReadonlyArray<string | undefined>): ToolsetChoice | undefined {
    const asked = new Set(
      lists.flatMap((list) => (list ?? '').split(',').map((name) => name.trim().toLowerCase())),
    );
    asked.delete('');
    if (asked.size === 0) return undefined;
    const unknown = [...asked].filter((name) => !this.#groups.has(name));
    if (unknown.length > 0) {
      throw new UserInputError(
        `Unknown toolset${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `'${n}'`).join(', ')}: ` +
          `choose among ${this.names.join(', ')}.`,
        { details: { unknown, known: this.names } },
      );
    }
    const names = this.names.filter((name) => asked.has(name));
    const tools = new Set(names.flatMap((name) => [...(this.#groups.get(name) ?? [])]));
    return {
      names,
      includes: (toolName) => tools.has(toolName),
      toolsetOf: (toolName) => this.toolsetOf(toolName),
    };
  }
}

/** The tools a choice keeps (all of them without a choice). */
export function chosenTools(tools: AnyTool[], choice: ToolsetChoice | undefined): AnyTool[] {
  return choice ? tools.filter((tool) => choice.includes(tool.name)) : tools;
}

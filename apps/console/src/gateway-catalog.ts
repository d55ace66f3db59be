import type { OpenApiDocument } from './tool-calls';

// The tools a gateway publishes, read from its /openapi.json: the one registry every binding is
// built from, so the runner lists exactly what MCP and REST clients can call right now (a group
// whose backend is not deployed is absent).

export interface CatalogTool {
  name: string;
  summary: string;
  description: string;
  /** The tool's group (its first tag, else the name's prefix). */
  group: string;
  capability: string | undefined;
  /** The input schema as published (usually a `$ref` into the document's components). */
  inputSchema: unknown;
}

const TOOL_PATH = /^\/v1\/tools\/([^/]+)$/;

export function catalogTools(doc: OpenApiDocument): CatalogTool[] {
  const tools: CatalogTool[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const name = TOOL_PATH.exec(path)?.[1];
    const post = item?.post;
    if (!name || !post) continue;
    tools.push({
      name,
      summary: post.summary ?? '',
      description: post.description ?? '',
      group: post.tags?.[0] ?? name.split('.')[0]!,
      capability: post['x-capability'],
      inputSchema: post.requestBody?.content?.['application/json']?.schema ?? { type: 'object' },
    });
  }
  return tools.sort((a, b) => a.name.localeCompare(b.name));
}

/** Tools by group: groups and the tools in each by name. */
export function byGroup(tools: CatalogTool[]): [string, CatalogTool[]][] {
  const groups = new Map<string, CatalogTool[]>();
  for (const tool of tools) groups.set(tool.group, [...(groups.get(tool.group) ?? []), tool]);
  return [...groups].sort(([a], [b]) => a.localeCompare(b));
}

export function findTool(doc: OpenApiDocument, name: string): CatalogTool | undefined {
  return catalogTools(doc).find((tool) => tool.name === name);
}

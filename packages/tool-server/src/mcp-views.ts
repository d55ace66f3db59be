// MCP Apps views on the MCP binding: resources/list and resources/read of the `ui://` resources
// that draw tool results, and the `_meta` that names a tool's view in tools/list. The views
// themselves (HTML, CSP metadata) come from the caller (@svc/mcp-views through the catalog).

import type { AnyTool } from '@svc/tool-kit';
import type { ResourceShelf } from './mcp-resources';

/** One view as resources/read serves it: an HTML document and its `_meta.ui` (CSP, border). */
export interface McpViewResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  text: string;
  _meta: Record<string, unknown>;
}

/** The `_meta` of a tool definition that has a view: `{ui: {resourceUri}}` as the extension defines. */
export type McpToolViewMeta = { ui: { resourceUri: string } };

export interface McpViews {
  resources: readonly McpViewResource[];
  /** Tool name -> its `_meta` in tools/list; tools without a view are absent. */
  toolMetas: Readonly<Record<string, McpToolViewMeta>>;
}

/**
 * The views of the tools a caller can see. A view is static HTML with no data in it, but one whose
 * tools are all hidden is neither listed nor read: what a caller finds in resources matches what
 * it finds in tools/list (and a hidden tool's view could never be fed a result anyway).
 */
export function visibleViews(views: McpViews, tools: readonly AnyTool[]): McpViewResource[] {
  const uris = new Set<string>();
  for (const tool of tools) {
    const uri = views.toolMetas[tool.name]?.ui.resourceUri;
    if (uri !== undefined) uris.add(uri);
  }
  return views.resources.filter((resource) => uris.has(resource.uri));
}

/**
 * The views as a resource shelf (mcp-resources.ts): resources/list shows each visible view without
 * its HTML, resources/read answers one view's HTML.
 */
export function viewShelf(views: McpViews, visibleTools: () => readonly AnyTool[]): ResourceShelf {
  return {
    list: () => visibleViews(views, visibleTools()).map(({ text: _text, ...listed }) => listed),
    read: async (uri) => {
      const view = visibleViews(views, visibleTools()).find((resource) => resource.uri === uri);
      if (!view) return undefined;
      return { contents: [{ uri: view.uri, mimeType: view.mimeType, text: view.text, _meta: view._meta }] };
    },
  };
}

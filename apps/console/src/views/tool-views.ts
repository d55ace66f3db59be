import { listViewResources, toolViewMetas, type ViewName, type ViewResource } from '@svc/mcp-views';

// Which tool answers the console draws with an MCP Apps view, and with which HTML: the same
// registry and the same documents the gateway's /mcp serves (its `catalogViews` is built from
// @svc/mcp-views too), so a view looks the same in the console as in Claude or VS Code.

/** A tool's view as the console serves it. */
export interface ToolView {
  name: ViewName;
  /** The view's `ui://` resource, as the tool's `_meta.ui.resourceUri` names it in tools/list. */
  uri: string;
  /** Where the console serves the view's HTML (an iframe's src). */
  src: string;
  title: string;
}

const RESOURCES: ReadonlyMap<string, ViewResource> = new Map(listViewResources().map((r) => [r.uri, r]));
const TOOL_VIEWS: ReadonlyMap<string, ToolView> = new Map(
  Object.entries(toolViewMetas()).flatMap(([tool, meta]) => {
    const resource = RESOURCES.get(meta.ui.resourceUri);
    if (!resource) return [];
    const view = {
      name: resource.name,
      uri: resource.uri,
      src: viewSrc(resource.name),
      title: resource.title,
    };
    return [[tool, view] as const];
  }),
);

function viewSrc(name: ViewName): string {
  return `/views/${name}.html`;
}

/** The view that draws `tool`'s answer; undefined for a tool that has none (its JSON is shown). */
export function toolViewOf(tool: string): ToolView | undefined {
  return TOOL_VIEWS.get(tool);
}

/** A view's HTML by the name in its src; undefined for any other name. */
export function viewDocument(name: string): string | undefined {
  return [...RESOURCES.values()].find((resource) => resource.name === name)?.text;
}

// What a server needs to serve the views: the resources (resources/list, resources/read) and the
// `_meta` each tool definition carries in tools/list.

import { VIEW_HTML } from './generated/view-html';
import { VIEW_MIME_TYPE, VIEWS, type ViewName, viewUri } from './views';

/**
 * The resource's `_meta.ui` as the extension defines it: no domain at all for connections, images,
 * fonts, frames or base URIs (the view talks to the host bridge only), and a border around it.
 */
export const VIEW_RESOURCE_META = {
  ui: {
    csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
    prefersBorder: true,
  },
} as const;

export interface ViewResource {
  uri: string;
  name: ViewName;
  title: string;
  description: string;
  mimeType: typeof VIEW_MIME_TYPE;
  /** The HTML document: resources/read answers `{contents: [{uri, mimeType, text, _meta}]}`. */
  text: string;
  _meta: typeof VIEW_RESOURCE_META;
}

/** The `_meta` a tool's definition carries in tools/list: which view draws its result. */
export interface ToolViewMeta {
  ui: { resourceUri: string };
}

export function listViewResources(): ViewResource[] {
  return VIEWS.map((view) => ({
    uri: viewUri(view.name),
    name: view.name,
    title: view.title,
    description: `Draws the result of ${view.tools.join(' and ')}.`,
    mimeType: VIEW_MIME_TYPE,
    text: VIEW_HTML[view.name],
    _meta: VIEW_RESOURCE_META,
  }));
}

/** resources/read of one view; undefined for a URI that is not one of ours. */
export function readViewResource(uri: string): ViewResource | undefined {
  return listViewResources().find((resource) => resource.uri === uri);
}

/** Tool name -> its `_meta`; only the tools that have a view are listed. */
export function toolViewMetas(): Record<string, ToolViewMeta> {
  const metas: Record<string, ToolViewMeta> = {};
  for (const view of VIEWS)
    for (const tool of view.tools) metas[tool] = { ui: { resourceUri: viewUri(view.name) } };
  return metas;
}

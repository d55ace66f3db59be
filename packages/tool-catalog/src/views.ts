import { listViewResources, toolViewMetas } from '@svc/mcp-views';
import type { McpViews } from '@svc/tool-server';

/**
 * The MCP Apps views the MCP servers (gateway, stdio) serve: each view's `ui://` resource and the
 * `_meta` of the tools it draws. Built once: the HTML is generated at build time and never changes
 * while a process runs.
 */
export const catalogViews: McpViews = { resources: listViewResources(), toolMetas: toolViewMetas() };

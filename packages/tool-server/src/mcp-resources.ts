// resources/list and resources/read of one MCP server, whose resources come from more than one
// kind: the MCP Apps views (mcp-views.ts, `ui://`) and the skills' files (mcp-skills.ts,
// `skill://`). The low-level Server has one handler per method, so each kind is a shelf and the
// handlers ask every shelf in turn.

import {
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
  type Server,
} from '@modelcontextprotocol/server';

/** One kind of resource: what resources/list shows of it, and its reader. */
export interface ResourceShelf {
  list(): readonly Resource[];
  /** The resource at `uri`, or undefined when this shelf has none there (for this caller). */
  read(uri: string): Promise<ReadResourceResult | undefined>;
}

/**
 * resources/list (every shelf's list) and resources/read (the first shelf holding the URI; none:
 * the protocol's resource-not-found, -32602 with `data.uri`, in both eras). The server must
 * declare the `resources` capability.
 */
export function serveResources(server: Server, shelves: readonly ResourceShelf[]): void {
  server.setRequestHandler('resources/list', async () => ({
    resources: shelves.flatMap((shelf) => shelf.list()),
  }));
  server.setRequestHandler('resources/read', async (request) => {
    const { uri } = request.params;
    for (const shelf of shelves) {
      const found = await shelf.read(uri);
      if (found) return found;
    }
    throw new ResourceNotFoundError(uri);
  });
}

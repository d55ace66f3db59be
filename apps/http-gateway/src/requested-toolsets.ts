import { TOOLSETS_HEADER, TOOLSETS_QUERY, type ToolsetChoice, type Toolsets } from '@svc/tool-server';
import type { Request } from 'express';

/**
 * The toolsets a request's client chose: the query parameter and the header together (an unknown
 * name is a 400 listing the known ones). Nothing chosen: the full catalog.
 */
export function requestedToolsets(req: Request, toolsets: Toolsets | undefined): ToolsetChoice | undefined {
  if (!toolsets) return undefined;
  const query = req.query[TOOLSETS_QUERY];
  const fromQuery = typeof query === 'string' ? query : Array.isArray(query) ? query.join(',') : undefined;
  return toolsets.choose([fromQuery, req.get(TOOLSETS_HEADER)]);
}

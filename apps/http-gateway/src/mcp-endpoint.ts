import type { InvestigationGuide, Logger } from '@svc/tool-kit';
import type { McpViews, ToolExecutor, Toolsets } from '@svc/tool-server';
import type { RequestHandler } from 'express';
import { principalOf } from './authenticate';
import { createLegacyMcp } from './mcp-legacy-endpoint';
import type { ListenStreams } from './mcp-listen';
import { createModernMcp } from './mcp-modern-endpoint';
import { mcpRequestOf } from './mcp-request';
import { mcpServerMaker } from './mcp-servers';
import type { McpSessionStore } from './mcp-sessions';
import { requestedToolsets } from './requested-toolsets';

export interface McpEndpointOptions {
  executor: ToolExecutor;
  sessions: McpSessionStore;
  listen: ListenStreams;
  /** Legacy clients served without sessions too (SVC_MCP_STATELESS=1); modern ones never have one. */
  stateless: boolean;
  maxBodyBytes: number;
  /** The listen streams one instance holds (the SDK's own bound; ours per tenant come first). */
  maxListenStreams: number;
  /** MCP Apps views: resources/list, resources/read and `_meta` of their tools (mcp-views.ts). */
  views?: McpViews;
  /** The groups a client may choose (`?toolsets=`, `X-MCP-Toolsets`). Absent: always the full catalog. */
  toolsets?: Toolsets;
  /** Investigation guides served as prompts. Absent: no prompts. */
  guides?: readonly InvestigationGuide[];
  logger: Logger;
  now: () => number;
}

export interface McpEndpoint {
  post: RequestHandler;
  get: RequestHandler;
  delete: RequestHandler;
  /** Closes the modern handler's in-flight exchanges and listen streams. */
  close(): Promise<void>;
}

/**
 * MCP StreamableHTTP at /mcp, after origin check, authentication, the request's reading
 * (mcp-request.ts), rate limit and body limit; both protocol eras on the one path
 * (mcp-modern-endpoint.ts, mcp-legacy-endpoint.ts).
 * Modern (2026-07-28): the SDK's per-request handler, one low-level server per request, nothing
 * kept between requests (any instance can answer any request), `subscriptions/listen` streams for
 * change notifications. Legacy (2025): one server per session, the session bound to the token_id
 * that opened it; or, with `stateless`, one per POST as for modern clients.
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { logger } = options;
  const newServer = mcpServerMaker(options.executor, options.views, options.guides);
  const onerror = (err: Error) => logger.debug({ err }, 'MCP request refused or failed');
  const modern = createModernMcp({
    newServer,
    listen: options.listen,
    maxListenStreams: options.maxListenStreams,
    maxBodyBytes: options.maxBodyBytes,
    onerror,
  });
  const legacy = createLegacyMcp({
    newServer,
    sessions: options.sessions,
    stateless: options.stateless,
    maxBodyBytes: options.maxBodyBytes,
    onerror,
    now: options.now,
  });
  return {
    async post(req, res, next) {
      try {
        const principal = principalOf(res);
        const read = mcpRequestOf(req);
        const toolsets = requestedToolsets(req, options.toolsets);
        if (read?.era === 'modern') return await modern.serve(req, res, principal, read, toolsets);
        await legacy.post(req, res, principal, read, toolsets);
      } catch (err) {
        logger.debug({ err }, 'MCP POST failed');
        next(err);
      }
    },
    get: legacy.get,
    delete: legacy.delete,
    close: () => modern.close(),
  };
}

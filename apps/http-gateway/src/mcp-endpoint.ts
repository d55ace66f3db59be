import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { type Logger, NotFoundError, type Principal, UserInputError } from '@svc/tool-kit';
import { createMcpServer, SERVICE_INFO, type ToolExecutor } from '@svc/tool-server';
import type { Request, RequestHandler, Response } from 'express';
import { principalOf } from './authenticate';
import { negotiatedVersion } from './mcp-batches';
import type { McpSession, McpSessionStore } from './mcp-sessions';

export interface McpEndpointOptions {
  executor: ToolExecutor;
  sessions: McpSessionStore;
  stateless: boolean;
  maxBodyBytes: number;
  allowedOrigins: readonly string[];
  /** Bound to loopback: the SDK's own DNS-rebinding check gets the loopback Host values too. */
  checkHost: boolean;
  logger: Logger;
  now: () => number;
}

export interface McpEndpoint {
  post: RequestHandler;
  get: RequestHandler;
  delete: RequestHandler;
}

/**
 * MCP StreamableHTTP at /mcp, after origin check, authentication, rate limit and body limit.
 * Stateful: one low-level Server per session, the session bound to the token_id that opened it.
 * Stateless (SVC_MCP_STATELESS=1): a fresh server and transport per POST, never reused.
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { executor, sessions, logger } = options;

  function newServer(principal: () => Principal) {
    return createMcpServer({
      executor,
      principal,
      transport: 'mcp',
      serverInfo: { name: SERVICE_INFO.name, version: SERVICE_INFO.version },
      newRequestId: () => randomUUID(),
    });
  }

  /**
   * Origin and Host are checked once, by the gateway's originGuard in front of every route. The
   * SDK's own check is left off: it compares Host with this socket's port, which refuses
   * legitimate requests that arrive through a loopback reverse proxy on another port.
   */
  function rebindingOptions(_req: Request) {
    // Answers stay SSE streams of one event: the SDK's plain-JSON answers (enableJsonResponse)
    // would save about 0.5 ms per call, but in a stateful session they leak (SDK 1.32.2, measured:
    // the live heap grew by about 4.5 KB per call, from 50 to 122 MB in 30 s), docs/decisions.md.
    return { maxRequestBodySize: options.maxBodyBytes };
  }

  /** The caller's session, or 404 when it does not exist or belongs to another token. */
  function sessionOf(req: Request, principal: Principal): McpSession {
    const id = req.get('mcp-session-id');
    if (!id) throw new UserInputError('Mcp-Session-Id header is required.');
    const session = sessions.get(id);
    if (!session || session.tokenId !== principal.tokenId) throw new NotFoundError('Session not found.');
    return session;
  }

  async function serveInSession(session: McpSession, req: Request, res: Response, principal: Principal) {
    session.principal = principal;
    sessions.enter(session);
    res.on('close', () => sessions.leave(session));
    await session.transport.handleRequest(req, res, req.body);
  }

  async function openSession(req: Request, res: Response, principal: Principal) {
    const tokenId = principal.tokenId;
    if (tokenId === null) throw new NotFoundError('Session not found.');
    // Throws 429 or 503 (with Retry-After) when the caps leave no place (session-caps.ts).
    const place = sessions.reserve(tokenId, principal.projectId);
    let session: McpSession | undefined;
    try {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          session = {
            id,
            tokenId,
            projectId: principal.projectId,
            principal,
            server,
            transport,
            lastSeen: options.now(),
            active: 0,
            protocolVersion: negotiatedVersion(req.body?.params?.protocolVersion),
          };
          place.fill(session);
        },
        onsessionclosed: (id) => sessions.forget(id),
        ...rebindingOptions(req),
      });
      const server = newServer(() => session?.principal ?? principal);
      server.onclose = () => {
        if (session) sessions.forget(session.id);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
      // An initialize that failed never created a session: nothing may stay behind.
      if (!session) await server.close();
    } finally {
      if (!session) place.release();
    }
  }

  async function serveStateless(req: Request, res: Response, principal: Principal) {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      ...rebindingOptions(req),
    });
    const server = newServer(() => principal);
    res.on('close', () => {
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  const methodNotAllowed: RequestHandler = (_req, res) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this server is stateless.' },
        id: null,
      });
  };

  return {
    async post(req, res, next) {
      try {
        const principal = principalOf(res);
        if (options.stateless) return await serveStateless(req, res, principal);
        if (req.get('mcp-session-id'))
          return await serveInSession(sessionOf(req, principal), req, res, principal);
        if (!isInitializeRequest(req.body)) {
          throw new UserInputError('Mcp-Session-Id header is required (send initialize first).');
        }
        await openSession(req, res, principal);
      } catch (err) {
        logger.debug({ err }, 'MCP POST failed');
        next(err);
      }
    },
    get: options.stateless
      ? methodNotAllowed
      : async (req, res, next) => {
          try {
            const principal = principalOf(res);
            await serveInSession(sessionOf(req, principal), req, res, principal);
          } catch (err) {
            next(err);
          }
        },
    delete: options.stateless
      ? methodNotAllowed
      : async (req, res, next) => {
          try {
            const principal = principalOf(res);
            await serveInSession(sessionOf(req, principal), req, res, principal);
          } catch (err) {
            next(err);
          }
        },
  };
}

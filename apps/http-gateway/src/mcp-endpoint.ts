import { randomUUID } from 'node:crypto';
import {
  type AuthInfo,
  createMcpHandler,
  type LegacyHttpHandler,
  legacyStatelessFallback,
  type McpHttpHandler,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { type Logger, NotFoundError, type Principal, UserInputError } from '@svc/tool-kit';
import {
  createMcpServer,
  type McpEra,
  type McpViews,
  SERVICE_INFO,
  type ToolExecutor,
} from '@svc/tool-server';
import type { Request, RequestHandler, Response } from 'express';
import { principalOf } from './authenticate';
import { negotiatedVersion } from './mcp-batches';
import type { ListenStreams } from './mcp-listen';
import { createModernExchanges } from './mcp-modern-exchange';
import { type McpRequest, mcpRequestOf } from './mcp-request';
import type { McpSession, McpSessionStore } from './mcp-sessions';
import { abortOnClientGone, sendWebResponse, webRequestOf } from './web-exchange';

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
 * The SDK's word for "who is calling": the gateway's principal rides in `extra`. The token itself
 * is not passed on (authentication is the gateway's, done before the SDK sees the request).
 */
function authInfoOf(principal: Principal, method?: string): AuthInfo {
  return {
    token: '',
    clientId: principal.tokenId ?? 'local',
    scopes: [],
    // A modern request's method (read and checked before, mcp-request.ts): its server is made for it.
    extra: method === undefined ? { principal } : { principal, method },
  };
}

function principalOfAuthInfo(authInfo: AuthInfo | undefined): Principal {
  const principal = authInfo?.extra?.principal as Principal | undefined;
  if (!principal) throw new Error('an MCP server was asked for without the principal of its request');
  return principal;
}

/**
 * MCP StreamableHTTP at /mcp, after origin check, authentication, the request's reading
 * (mcp-request.ts), rate limit and body limit; both protocol eras on the one path.
 * Modern (2026-07-28): the SDK's per-request handler, one low-level server per request, nothing
 * kept between requests (any instance can answer any request), `subscriptions/listen` streams for
 * change notifications. Legacy (2025): one server per session, the session bound to the token_id
 * that opened it; or, with `stateless`, one per POST as for modern clients.
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { executor, sessions, listen, logger } = options;

  function newServer(principal: () => Principal, era: McpEra, method?: string): Server {
    return createMcpServer({
      executor,
      principal,
      transport: 'mcp',
      serverInfo: { name: SERVICE_INFO.name, version: SERVICE_INFO.version },
      newRequestId: () => randomUUID(),
      era,
      ...(options.views ? { views: options.views } : {}),
      ...(method !== undefined ? { method } : {}),
    });
  }

  const onerror = (err: Error) => logger.debug({ err }, 'MCP request refused or failed');
  const modern: McpHttpHandler = createMcpHandler(
    (ctx) => {
      const principal = principalOfAuthInfo(ctx.authInfo);
      const method = ctx.authInfo?.extra?.method;
      return newServer(() => principal, ctx.era, typeof method === 'string' ? method : undefined);
    },
    {
      // Legacy requests never reach this handler: they are told apart before (mcp-request.ts).
      legacy: 'reject',
      bus: listen.bus,
      maxSubscriptions: options.maxListenStreams,
      maxRequestBodySize: options.maxBodyBytes,
      onerror,
    },
  );
  const legacyStateless: LegacyHttpHandler = legacyStatelessFallback(
    (ctx) => {
      const principal = principalOfAuthInfo(ctx.authInfo);
      return newServer(() => principal, 'legacy');
    },
    onerror,
    { maxRequestBodySize: options.maxBodyBytes },
  );

  // Plain requests of the methods mcp-request.ts classified for it: without the handler above.
  const exchanges = createModernExchanges({
    newServer: (method, authInfo) => {
      const principal = principalOfAuthInfo(authInfo);
      return newServer(() => principal, 'modern', method);
    },
    onerror,
  });

  async function serveModern(req: Request, res: Response, principal: Principal, read: McpRequest) {
    if (read.era === 'modern' && read.exchange)
      return exchanges.serve(req, res, read.exchange, authInfoOf(principal));
    const abort = abortOnClientGone(res);
    const handle = async () =>
      sendWebResponse(
        res,
        await modern.fetch(webRequestOf(req, abort.signal), {
          authInfo: authInfoOf(principal, read.messages[0]?.method),
          parsedBody: req.body,
        }),
      );
    const listens = read.era === 'modern' && read.listen;
    if (listens) await listen.serve(principal, abort, handle);
    else await handle();
  }

  async function serveStateless(req: Request, res: Response, principal: Principal) {
    const abort = abortOnClientGone(res);
    const response = await legacyStateless(webRequestOf(req, abort.signal), {
      authInfo: authInfoOf(principal),
      ...(req.body !== undefined ? { parsedBody: req.body } : {}),
    });
    await sendWebResponse(res, response);
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
    const abort = abortOnClientGone(res);
    const response = await session.transport.handleRequest(webRequestOf(req, abort.signal), {
      authInfo: authInfoOf(principal),
      ...(req.body !== undefined ? { parsedBody: req.body } : {}),
    });
    await sendWebResponse(res, response);
  }

  async function openSession(req: Request, res: Response, principal: Principal) {
    const tokenId = principal.tokenId;
    if (tokenId === null) throw new NotFoundError('Session not found.');
    // Throws 429 or 503 (with Retry-After) when the caps leave no place (session-caps.ts).
    const place = sessions.reserve(tokenId, principal.projectId, principal.orgId);
    let session: McpSession | undefined;
    let server: Server | undefined;
    try {
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          session = {
            id,
            tokenId,
            projectId: principal.projectId,
            orgId: principal.orgId,
            principal,
            server: server!,
            transport,
            lastSeen: options.now(),
            active: 0,
            protocolVersion: negotiatedVersion(req.body?.params?.protocolVersion),
          };
          place.fill(session);
        },
        onsessionclosed: (id) => sessions.forget(id),
      });
      server = newServer(() => session?.principal ?? principal, 'legacy');
      server.onclose = () => {
        if (session) sessions.forget(session.id);
      };
      await server.connect(transport);
      const abort = abortOnClientGone(res);
      const response = await transport.handleRequest(webRequestOf(req, abort.signal), {
        authInfo: authInfoOf(principal),
        parsedBody: req.body,
      });
      await sendWebResponse(res, response);
      // An initialize that failed never created a session: nothing may stay behind.
      if (!session) await server.close();
    } finally {
      if (!session) place.release();
    }
  }

  const methodNotAllowed: RequestHandler = (_req, res) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this server keeps no sessions.' },
        id: null,
      });
  };

  const inSession: RequestHandler = async (req, res, next) => {
    try {
      const principal = principalOf(res);
      await serveInSession(sessionOf(req, principal), req, res, principal);
    } catch (err) {
      next(err);
    }
  };

  return {
    async post(req, res, next) {
      try {
        const principal = principalOf(res);
        const read = mcpRequestOf(req);
        if (read?.era === 'modern') return await serveModern(req, res, principal, read);
        if (options.stateless) return await serveStateless(req, res, principal);
        if (req.get('mcp-session-id'))
          return await serveInSession(sessionOf(req, principal), req, res, principal);
        if (read?.messages[0]?.method !== 'initialize' || Array.isArray(req.body)) {
          throw new UserInputError('Mcp-Session-Id header is required (send initialize first).');
        }
        await openSession(req, res, principal);
      } catch (err) {
        logger.debug({ err }, 'MCP POST failed');
        next(err);
      }
    },
    get: options.stateless ? methodNotAllowed : inSession,
    delete: options.stateless ? methodNotAllowed : inSession,
    close: async () => {
      await Promise.all([modern.close(), exchanges.close()]);
    },
  };
}

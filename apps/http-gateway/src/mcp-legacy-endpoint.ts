import { randomUUID } from 'node:crypto';
import {
  type LegacyHttpHandler,
  legacyStatelessFallback,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { NotFoundError, UserInputError } from '@svc/errors';
import type { Principal } from '@svc/tool-kit';
import type { ToolsetChoice } from '@svc/tool-server';
import type { Request, RequestHandler, Response } from 'express';
import { principalOf } from './authenticate';
import { negotiatedVersion } from './mcp-batches';
import type { McpRequest } from './mcp-request';
import { authInfoOf, type McpServerMaker, principalOfAuthInfo, toolsetsOfAuthInfo } from './mcp-servers';
import type { McpSession, McpSessionStore } from './mcp-sessions';
import { abortOnClientGone, sendWebResponse, webRequestOf } from './web-exchange';

export interface LegacyMcpOptions {
  newServer: McpServerMaker;
  sessions: McpSessionStore;
  /** One server per POST, no sessions (SVC_MCP_STATELESS=1). */
  stateless: boolean;
  maxBodyBytes: number;
  onerror: (err: Error) => void;
  now: () => number;
}

export interface LegacyMcp {
  /**
   * A POST the request's reading (mcp-request.ts) did not find modern. `toolsets`: its client's
   * choice; a session keeps the choice of its initialize (its server is made then).
   */
  post(
    req: Request,
    res: Response,
    principal: Principal,
    read: McpRequest | undefined,
    toolsets?: ToolsetChoice,
  ): Promise<void>;
  get: RequestHandler;
  delete: RequestHandler;
}

/**
 * The legacy era (the 2025 revisions): one server per session, the session bound to the token_id
 * that opened it (initialize); or, with `stateless`, one per POST as for modern clients.
 */
export function createLegacyMcp(options: LegacyMcpOptions): LegacyMcp {
  const statelessHandler: LegacyHttpHandler = legacyStatelessFallback(
    (ctx) => {
      const principal = principalOfAuthInfo(ctx.authInfo);
      return options.newServer(() => principal, 'legacy', undefined, toolsetsOfAuthInfo(ctx.authInfo));
    },
    options.onerror,
    { maxRequestBodySize: options.maxBodyBytes },
  );
  const inSession: RequestHandler = async (req, res, next) => {
    try {
      const principal = principalOf(res);
      await serveInSession(options, sessionOf(options, req, principal), req, res, principal);
    } catch (err) {
      next(err);
    }
  };
  return {
    async post(req, res, principal, read, toolsets) {
      if (options.stateless) return await serveStateless(statelessHandler, req, res, principal, toolsets);
      if (req.get('mcp-session-id'))
        return await serveInSession(options, sessionOf(options, req, principal), req, res, principal);
      if (read?.messages[0]?.method !== 'initialize' || Array.isArray(req.body)) {
        throw new UserInputError('Mcp-Session-Id header is required (send initialize first).');
      }
      await openSession(options, req, res, principal, toolsets);
    },
    get: options.stateless ? methodNotAllowed : inSession,
    delete: options.stateless ? methodNotAllowed : inSession,
  };
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

async function serveStateless(
  handler: LegacyHttpHandler,
  req: Request,
  res: Response,
  principal: Principal,
  toolsets: ToolsetChoice | undefined,
) {
  const abort = abortOnClientGone(res);
  const response = await handler(webRequestOf(req, abort.signal), {
    authInfo: authInfoOf(principal, undefined, toolsets),
    ...(req.body !== undefined ? { parsedBody: req.body } : {}),
  });
  await sendWebResponse(res, response);
}

/** The caller's session, or 404 when it does not exist or belongs to another token. */
function sessionOf(options: LegacyMcpOptions, req: Request, principal: Principal): McpSession {
  const id = req.get('mcp-session-id');
  if (!id) throw new UserInputError('Mcp-Session-Id header is required.');
  const session = options.sessions.get(id);
  if (!session || session.tokenId !== principal.tokenId) throw new NotFoundError('Session not found.');
  return session;
}

async function serveInSession(
  options: LegacyMcpOptions,
  session: McpSession,
  req: Request,
  res: Response,
  principal: Principal,
) {
  const { sessions } = options;
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

/** An initialize: a session opened when the caps leave it a place, its server connected. */
async function openSession(
  options: LegacyMcpOptions,
  req: Request,
  res: Response,
  principal: Principal,
  toolsets: ToolsetChoice | undefined,
) {
  const { sessions } = options;
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
    server = options.newServer(() => session?.principal ?? principal, 'legacy', undefined, toolsets);
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

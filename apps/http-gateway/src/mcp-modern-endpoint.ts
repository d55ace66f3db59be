import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Principal } from '@svc/tool-kit';
import type { ToolsetChoice } from '@svc/tool-server';
import type { Request, Response } from 'express';
import type { ListenStreams } from './mcp-listen';
import { createModernExchanges } from './mcp-modern-exchange';
import type { McpRequest } from './mcp-request';
import { authInfoOf, type McpServerMaker, principalOfAuthInfo, toolsetsOfAuthInfo } from './mcp-servers';
import { abortOnClientGone, sendWebResponse, webRequestOf } from './web-exchange';

export interface ModernMcpOptions {
  newServer: McpServerMaker;
  listen: ListenStreams;
  /** The listen streams one instance holds (the SDK's own bound; ours per tenant come first). */
  maxListenStreams: number;
  maxBodyBytes: number;
  onerror: (err: Error) => void;
}

export interface ModernMcp {
  serve(
    req: Request,
    res: Response,
    principal: Principal,
    read: McpRequest,
    toolsets?: ToolsetChoice,
  ): Promise<void>;
  /** Closes the in-flight exchanges and listen streams. */
  close(): Promise<void>;
}

/**
 * The modern era (2026-07-28): the SDK's per-request handler, one low-level server per request,
 * nothing kept between requests (any instance can answer any request), `subscriptions/listen`
 * streams for change notifications; plain requests of the methods mcp-request.ts classified for
 * it are served without the handler (mcp-modern-exchange.ts).
 */
export function createModernMcp(options: ModernMcpOptions): ModernMcp {
  const { newServer, listen, onerror } = options;
  const handler: McpHttpHandler = createMcpHandler(
    (ctx) => {
      const principal = principalOfAuthInfo(ctx.authInfo);
      const method = ctx.authInfo?.extra?.method;
      const toolsets = toolsetsOfAuthInfo(ctx.authInfo);
      return newServer(() => principal, ctx.era, typeof method === 'string' ? method : undefined, toolsets);
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
  const exchanges = createModernExchanges({
    newServer: (method, authInfo) => {
      const principal = principalOfAuthInfo(authInfo);
      return newServer(() => principal, 'modern', method, toolsetsOfAuthInfo(authInfo));
    },
    onerror,
  });

  async function serve(
    req: Request,
    res: Response,
    principal: Principal,
    read: McpRequest,
    toolsets?: ToolsetChoice,
  ) {
    if (read.era === 'modern' && read.exchange)
      return exchanges.serve(req, res, read.exchange, authInfoOf(principal, undefined, toolsets));
    const abort = abortOnClientGone(res);
    const handle = async () =>
      sendWebResponse(
        res,
        await handler.fetch(webRequestOf(req, abort.signal), {
          authInfo: authInfoOf(principal, read.messages[0]?.method, toolsets),
          parsedBody: req.body,
        }),
      );
    const listens = read.era === 'modern' && read.listen;
    if (listens) await listen.serve(principal, abort, handle);
    else await handle();
  }

  return {
    serve,
    close: async () => {
      await Promise.all([handler.close(), exchanges.close()]);
    },
  };
}

import {
  type AuthInfo,
  type JSONRPCRequest,
  type MessageClassification,
  PerRequestHTTPServerTransport,
  type RequestId,
  SdkError,
  SdkErrorCode,
  type Server,
} from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import { abortOnClientGone, sendWebResponse, webRequestOf } from './web-exchange';

// A modern (2026-07-28) request whose every check is done before it gets here (mcp-request.ts:
// classified once by the SDK's classifier, its standard headers checked against the body, a
// revision we serve) is served with the SDK's own building blocks for custom routing: a fresh
// server for its method connected to a PerRequestHTTPServerTransport, which binds the server to
// the request's revision, runs the protocol layer's own checks (era, method, the `_meta`
// envelope) and shapes the answer (JSON, or SSE once a related message comes first). The SDK's
// createMcpHandler would classify the request again and repeat checks already made; it still
// serves the rest (listen streams, methods whose Mcp-Name the SDK checks against other fields).

/** What the SDK's classifier made of a request that is served here. */
export interface ModernExchange {
  message: JSONRPCRequest;
  classification: MessageClassification;
}

export interface ModernExchanges {
  serve(req: Request, res: Response, exchange: ModernExchange, authInfo: AuthInfo): Promise<void>;
  /** Shutdown: closes the servers of exchanges in flight (their clients get no answer). */
  close(): Promise<void>;
}

/** The SDK handler's answer to a failure of its own: JSON-RPC -32603, never the error's text. */
function internalError(id: JSONRPCRequest['id']): globalThis.Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id },
    { status: 500 },
  );
}

/**
 * Once its answer is out, an exchange's transport closes and the SDK's protocol layer builds a
 * ConnectionClosed error for whatever is still waiting on it: nothing, the one request is answered.
 * Its stack trace was a tenth of the exchange's cost; after the answer that close runs without
 * stack traces (the limit restored right after). A close before the answer (the client gone, a
 * shutdown) keeps them: its errors may be logged.
 */
export function closeWithoutStacksOnceAnswered(
  transport: PerRequestHTTPServerTransport,
  id: RequestId,
): void {
  let answered = false;
  const send = transport.send.bind(transport);
  transport.send = (message, sendOptions) => {
    if ('id' in message && message.id === id && ('result' in message || 'error' in message)) answered = true;
    return send(message, sendOptions);
  };
  const close = transport.onclose;
  transport.onclose = () => {
    if (!answered) return close?.();
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      close?.();
    } finally {
      Error.stackTraceLimit = limit;
    }
  };
}

export function createModernExchanges(options: {
  /** A new server made for this method (only its handler registered). */
  newServer: (method: string, authInfo: AuthInfo) => Server;
  onerror: (err: Error) => void;
}): ModernExchanges {
  const inflight = new Set<Server>();
  let closed = false;

  async function answer(
    req: Request,
    exchange: ModernExchange,
    authInfo: AuthInfo,
    signal: AbortSignal,
  ): Promise<globalThis.Response> {
    // The client went away before the answer: there is nobody to answer.
    const unanswered = () => new Response(null, { status: 499 });
    if (signal.aborted) return unanswered();
    const server = options.newServer(exchange.message.method, authInfo);
    const transport = new PerRequestHTTPServerTransport({ classification: exchange.classification });
    await server.connect(transport);
    closeWithoutStacksOnceAnswered(transport, exchange.message.id);
    inflight.add(server);
    // The transport closes itself once the answer is out (or the client is gone).
    server.onclose = () => inflight.delete(server);
    // The client gone: the exchange closes, which cancels the call down to the backend's query, as
    // the transport does when its request's signal aborts; the request follows no signal (cheaper).
    const gone = () => void transport.close();
    signal.addEventListener('abort', gone, { once: true });
    try {
      return await transport.handleMessage(exchange.message, { request: webRequestOf(req), authInfo });
    } catch (err) {
      if (signal.aborted || (err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed))
        return unanswered();
      inflight.delete(server);
      await server.close().catch(() => {});
      options.onerror(err instanceof Error ? err : new Error(String(err)));
      return internalError(exchange.message.id);
    }
  }

  return {
    async serve(req, res, exchange, authInfo) {
      if (closed) throw new Error('The MCP endpoint has been closed');
      const abort = abortOnClientGone(res);
      await sendWebResponse(res, await answer(req, exchange, authInfo, abort.signal));
    },
    async close() {
      closed = true;
      const closing = [...inflight].map((server) => server.close().catch(() => {}));
      inflight.clear();
      await Promise.all(closing);
    },
  };
}

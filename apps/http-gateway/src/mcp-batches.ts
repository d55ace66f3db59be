import { LEGACY_PROTOCOL_VERSIONS } from '@svc/tool-server';
import type { RequestHandler } from 'express';
import type { McpSessionStore } from './mcp-sessions';

// JSON-RPC batches on /mcp, a legacy-era thing (a modern request is one message: a batch holding
// one is refused before this, mcp-request.ts). Protocol version 2025-06-18 removed them; older
// versions allowed them.
// A batch is refused under a version without them, capped in size under the others, and each of
// its messages counts as a call against the rate and concurrency limits (`messagesIn`).

/** The first protocol version without JSON-RPC batching. */
export const NO_BATCHES_FROM = '2025-06-18';
export const MAX_BATCH = 16;

/** How many calls a POST body makes: the length of a batch, else one. */
export const messagesIn = (body: unknown): number => (Array.isArray(body) ? body.length : 1);

/**
 * The version a legacy client negotiates by asking for `requested` at initialize (the SDK's rule:
 * the version asked for when served, else the newest legacy one).
 */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && LEGACY_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LEGACY_PROTOCOL_VERSIONS[0]!;
}

const refuse = (message: string) => ({ jsonrpc: '2.0', error: { code: -32600, message }, id: null });

/**
 * Before the SDK sees the body: the version is the request's MCP-Protocol-Version header, else the
 * one its session negotiated, else 2025-03-26 (what a server assumes without the header).
 */
export function batchRules(sessions: McpSessionStore): RequestHandler {
  return (req, res, next) => {
    if (!Array.isArray(req.body)) {
      next();
      return;
    }
    const sessionId = req.get('mcp-session-id');
    const version =
      req.get('mcp-protocol-version') ??
      (sessionId ? sessions.get(sessionId)?.protocolVersion : undefined) ??
      '2025-03-26';
    if (version >= NO_BATCHES_FROM) {
      res.status(400).json(refuse(`JSON-RPC batches are not part of MCP protocol version ${version}.`));
      return;
    }
    if (req.body.length === 0 || req.body.length > MAX_BATCH) {
      res.status(400).json(refuse(`A JSON-RPC batch must hold 1 to ${MAX_BATCH} messages.`));
      return;
    }
    next();
  };
}

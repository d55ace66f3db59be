import type { IncomingMessage } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { bindEach, type Metrics } from '@svc/metrics';
import { MODERN_PROTOCOL_VERSIONS } from '@svc/tool-server';
import type { RequestHandler } from 'express';
import type { ModernExchange } from './mcp-modern-exchange';

// What an MCP request on /mcp is, read once before anything else looks at it: its era and the
// method (and tool) of each message. A modern (2026-07-28) request's method and tool come from its
// Mcp-Method and Mcp-Name headers, which must be present and agree with the body: the rate limits,
// metrics, traces and audit that use them can then trust the headers, and a request whose header
// names one tool while its body calls another is refused here (400, -32020 HeaderMismatch), as the
// revision requires, before it is counted or served. A legacy request's come from its body.

/** JSON-RPC -32020 HeaderMismatch (2026-07-28): headers missing, malformed or not what the body says. */
export const HEADER_MISMATCH = -32020;

export interface McpMessage {
  method: string;
  /** The tool of a tools/call. */
  tool?: string;
}

export type McpRequest =
  /**
   * One message, no session; `messages` has exactly one entry. `exchange`: the classified request,
   * when it is served without the SDK's handler (mcp-modern-exchange.ts).
   */
  | { era: 'modern'; messages: [McpMessage]; listen: boolean; exchange?: ModernExchange }
  /** A session's POST (one message or a batch), GET stream or DELETE; none for GET/DELETE. */
  | { era: 'legacy'; messages: McpMessage[] };

export interface McpRefusal {
  status: number;
  body: {
    jsonrpc: '2.0';
    error: { code: number; message: string; data?: unknown };
    id: string | number | null;
  };
}

const recorded = new WeakMap<IncomingMessage, McpRequest>();

/** What mcpRequestRules found for this request (undefined before it ran, or when it refused). */
export function mcpRequestOf(req: IncomingMessage): McpRequest | undefined {
  return recorded.get(req);
}

/** The id to echo in a refusal: the body's, when it is one request with a string or number id. */
function echoableId(body: unknown): string | number | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

const refusal = (
  status: number,
  code: number,
  message: string,
  body: unknown,
  data?: unknown,
): McpRefusal => ({
  status,
  body: {
    jsonrpc: '2.0',
    error: { code, message, ...(data !== undefined ? { data } : {}) },
    id: echoableId(body),
  },
});

/** A header value in a message, bounded: what the client sent, never anything of ours. */
const quoted = (value: string) => JSON.stringify(value.length > 128 ? `${value.slice(0, 128)}…` : value);

/** An Mcp-Name value: plain, or the revision's Base64 sentinel `=?base64?...?=` (UTF-8). */
export function decodeMcpName(header: string): string | undefined {
  const sentinel = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(header);
  if (!sentinel) return header.startsWith('=?base64?') ? undefined : header;
  const bytes = Buffer.from(sentinel[1]!, 'base64');
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

function messageOf(value: unknown): McpMessage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { method, params } = value as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string') return undefined;
  const tool = method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined;
  return tool === undefined ? { method } : { method, tool };
}

/** The `_meta` key whose presence makes a request claim a revision (2026-07-28: the envelope). */
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A modern request whose every part is plainly what it says (the method and id of a JSON-RPC
 * request, the envelope claiming a revision we serve, the MCP-Protocol-Version and Mcp-Method
 * headers equal to the body's, byte for byte), told apart without the SDK's classifier: the SDK's
 * handler classifies every modern request again (a dozen microseconds and ten kilobytes of
 * schema parsing each time). Anything else, unusual or wrong, goes to the classifier, which answers
 * for it as before, and so does every refusal. The envelope's other keys are left to the SDK's
 * handler, which refuses a bad one (400, -32602) before serving anything.
 */
function plainModernRequest(
  header: (name: string) => string | undefined,
  body: unknown,
): { method: string; params: Record<string, unknown> } | undefined {
  if (!isPlainObject(body) || body.jsonrpc !== '2.0') return undefined;
  // Exactly a JSON-RPC request's keys (the SDK's schema is strict): no result, error or anything else.
  for (const key in body) if (!REQUEST_KEYS.has(key)) return undefined;
  const { id, method, params } = body;
  if (typeof method !== 'string' || method === 'initialize' || !isPlainObject(params)) return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  const meta = params._meta;
  // The keys of `_meta` the SDK's request schema checks the form of are left to it.
  if (!isPlainObject(meta) || 'progressToken' in meta || RELATED_TASK_META_KEY in meta) return undefined;
  const version = meta[PROTOCOL_VERSION_META_KEY];
  if (typeof version !== 'string' || !MODERN_PROTOCOL_VERSIONS.includes(version)) return undefined;
  if (header('mcp-protocol-version') !== version || header('mcp-method') !== method) return undefined;
  return { method, params };
}

/**
 * Modern methods served without the SDK's handler (mcp-modern-exchange.ts), classified here once:
 * every standard header the SDK's handler would check on them is checked here (of the methods with
 * an Mcp-Name, only tools/call; resources/read, prompts/get and tasks name theirs from other fields).
 */
const SERVED_AS_EXCHANGES = new Set(['tools/call', 'tools/list', 'server/discover', 'resources/list']);

/**
 * The era of a request on /mcp and its messages, or the refusal the 2026-07-28 revision asks for:
 * classification is the SDK's (body first; the MCP-Protocol-Version header a cross-check), the
 * standard headers of a modern request are checked here. A plain modern request skips the SDK's
 * classifier (plainModernRequest), which the SDK's handler runs on it anyway.
 */
export function readMcpRequest(
  httpMethod: string,
  header: (name: string) => string | undefined,
  body: unknown,
): McpRequest | McpRefusal {
  const plain = httpMethod === 'POST' ? plainModernRequest(header, body) : undefined;
  // A request served as an exchange needs the classifier's word (its envelope checked) once.
  if (plain && !SERVED_AS_EXCHANGES.has(plain.method)) {
    const read = checkModernHeaders(plain.method, plain.params, header, body);
    // A refusal is the classifier's to word: it checks the envelope before the headers are ours.
    if (!('status' in read)) return read;
  }
  return classifiedMcpRequest(httpMethod, header, body);
}

/** readMcpRequest with every request through the SDK's classifier (and the tests' reference). */
export function classifiedMcpRequest(
  httpMethod: string,
  header: (name: string) => string | undefined,
  body: unknown,
): McpRequest | McpRefusal {
  // No JSON body (none, or not JSON): nothing claims the modern era, the legacy transport answers.
  if (httpMethod === 'POST' && body === undefined) return { era: 'legacy', messages: [] };
  const outcome = classifyInboundRequest({
    httpMethod,
    protocolVersionHeader: header('mcp-protocol-version'),
    mcpMethodHeader: header('mcp-method'),
    mcpNameHeader: header('mcp-name'),
    body,
  });
  if (outcome.kind === 'reject')
    return refusal(outcome.httpStatus, outcome.code, outcome.message, body, outcome.data);
  if (outcome.kind === 'legacy') {
    const messages = (Array.isArray(body) ? body : body === undefined ? [] : [body])
      .map(messageOf)
      .filter((m): m is McpMessage => m !== undefined);
    return { era: 'legacy', messages };
  }
  const method = outcome.message.method;
  if (outcome.messageKind === 'notification') return { era: 'modern', messages: [{ method }], listen: false };
  const read = checkModernHeaders(method, outcome.message.params, header, body);
  const revision = outcome.classification.revision;
  // A revision we do not serve is refused by the SDK's handler, in its words.
  if (
    'status' in read ||
    read.era !== 'modern' ||
    !SERVED_AS_EXCHANGES.has(method) ||
    revision === undefined ||
    !MODERN_PROTOCOL_VERSIONS.includes(revision)
  )
    return read;
  return { ...read, exchange: { message: outcome.message, classification: outcome.classification } };
}

/** The standard headers of a modern request (not a notification): present, and what the body says. */
function checkModernHeaders(
  method: string,
  params: unknown,
  header: (name: string) => string | undefined,
  body: unknown,
): McpRequest | McpRefusal {
  const mismatch = (message: string) => refusal(400, HEADER_MISMATCH, `Header mismatch: ${message}.`, body);
  if (header('mcp-protocol-version') === undefined)
    return mismatch('the MCP-Protocol-Version header is required');
  // The classifier has already refused an Mcp-Method that names another method than the body.
  if (header('mcp-method') === undefined) return mismatch('the Mcp-Method header is required');
  if (method !== 'tools/call')
    return { era: 'modern', messages: [{ method }], listen: method === 'subscriptions/listen' };
  const bodyName = (params as { name?: unknown } | undefined)?.name;
  const nameHeader = header('mcp-name');
  if (nameHeader === undefined) {
    if (typeof bodyName !== 'string') return { era: 'modern', messages: [{ method }], listen: false };
    return mismatch('the Mcp-Name header is required on tools/call');
  }
  const tool = decodeMcpName(nameHeader.trim());
  if (tool === undefined) return mismatch(`the Mcp-Name header ${quoted(nameHeader)} is not a valid value`);
  if (tool !== bodyName) {
    return mismatch(
      `the Mcp-Name header names the tool ${quoted(tool)} but the body calls ` +
        (typeof bodyName === 'string' ? quoted(bodyName) : 'no tool'),
    );
  }
  return { era: 'modern', messages: [{ method, tool }], listen: false };
}

/** The method label of the requests metric: the protocol's own methods, anything else `other`. */
const KNOWN_METHODS = new Set([
  'initialize',
  'notifications/initialized',
  'notifications/cancelled',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'server/discover',
  'subscriptions/listen',
  'logging/setLevel',
  // The investigation guides, as prompts and as skills (the Skills extension's methods).
  'prompts/list',
  'prompts/get',
  'skills/list',
  'skills/get',
]);

/**
 * Pipeline step after authentication and the body (before the rate limits, which count what it
 * found): reads the request (readMcpRequest), answers a refusal at once, counts the rest by era
 * and method (gateway_mcp_requests_total: how many clients still speak a legacy revision).
 */
export function mcpRequestRules(metrics: Metrics): RequestHandler {
  const labels = ['era', 'method'];
  // Bound per (era, method): both come from small fixed sets, and this runs on every request.
  const requests = bindEach(
    metrics.counter('gateway_mcp_requests_total', 'MCP requests by protocol era and method', labels),
    labels,
  );
  return (req, res, next) => {
    const read = readMcpRequest(req.method, (name) => req.get(name), req.body);
    if ('status' in read) {
      requests('unknown', 'refused').inc();
      res.status(read.status).json(read.body);
      return;
    }
    recorded.set(req, read);
    if (read.messages.length === 0) requests(read.era, `http:${req.method}`).inc();
    for (const m of read.messages) {
      requests(read.era, KNOWN_METHODS.has(m.method) ? m.method : 'other').inc();
    }
    next();
  };
}

import { classifiedMcpRequest, HEADER_MISMATCH, readMcpRequest } from './mcp-request';
import { MODERN_META, MODERN_VERSION } from './testing/mcp-clients';

// A plain modern request the SDK's handler serves is read without the SDK's classifier (the
// handler classifies it again anyway); one the gateway serves as an exchange (tools/call among
// others, mcp-modern-exchange.ts) is classified here, once. Every request must be read as the
// classifier reads it; the one exception is an envelope the classifier refuses (400, -32602),
// which the shortcut leaves to the SDK's handler (app.mcp-modern.test.ts: the same refusal,
// nothing called or audited).

type Headers = Record<string, string | undefined>;
type Body = Record<string, unknown>;

const CLAIM = 'io.modelcontextprotocol/protocolVersion';
const call = (): Body => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'log.recent', arguments: { limit: 1 }, _meta: { ...MODERN_META } },
});
const headersOf = (method: string, name?: string): Headers => ({
  'mcp-protocol-version': MODERN_VERSION,
  'mcp-method': method,
  'mcp-name': name,
});

const paramsOf = (body: Body) => body.params as Body;
const metaOf = (body: Body) => paramsOf(body)._meta as Body;

/** Changes to a plain modern tools/call body, each on a fresh copy. */
const BODY_CHANGES: [string, (b: Body) => void][] = [
  ['as sent', () => {}],
  ['a string id', (b) => (b.id = 'call-1')],
  ['a fractional id', (b) => (b.id = 1.5)],
  ['a null id', (b) => (b.id = null)],
  ['no id (a notification)', (b) => delete b.id],
  ['JSON-RPC 1.0', (b) => (b.jsonrpc = '1.0')],
  ['a result key too', (b) => (b.result = {})],
  ['an error key too', (b) => (b.error = { code: 1, message: 'x' })],
  ['an unknown top-level key', (b) => (b.extra = 1)],
  ['a __proto__ key', (b) => Object.defineProperty(b, '__proto__', { value: {}, enumerable: true })],
  ['method initialize', (b) => (b.method = 'initialize')],
  ['method tools/list', (b) => (b.method = 'tools/list')],
  ['method server/discover', (b) => (b.method = 'server/discover')],
  ['method subscriptions/listen', (b) => (b.method = 'subscriptions/listen')],
  ['an unknown method', (b) => (b.method = 'x/unknown')],
  ['a numeric method', (b) => (b.method = 5)],
  ['no params', (b) => delete b.params],
  ['params an array', (b) => (b.params = [])],
  ['no tool name', (b) => delete paramsOf(b).name],
  ['a numeric tool name', (b) => (paramsOf(b).name = 3)],
  ['no _meta', (b) => delete paramsOf(b)._meta],
  ['_meta an array', (b) => (paramsOf(b)._meta = [])],
  ['no claim', (b) => delete metaOf(b)[CLAIM]],
  ['a numeric claim', (b) => (metaOf(b)[CLAIM] = 2026)],
  ['a legacy claim', (b) => (metaOf(b)[CLAIM] = '2025-11-25')],
  ['a later, unserved claim', (b) => (metaOf(b)[CLAIM] = '2099-01-01')],
  ['a progress token', (b) => (metaOf(b).progressToken = 'p1')],
  ['a bad progress token', (b) => (metaOf(b).progressToken = { x: 1 })],
  ['a related task', (b) => (metaOf(b)['io.modelcontextprotocol/related-task'] = 5)],
  ['no client capabilities', (b) => delete metaOf(b)['io.modelcontextprotocol/clientCapabilities']],
  ['client capabilities a string', (b) => (metaOf(b)['io.modelcontextprotocol/clientCapabilities'] = 'x')],
  ['client info a number', (b) => (metaOf(b)['io.modelcontextprotocol/clientInfo'] = 1)],
];

/** Changes to the headers of that call. */
const HEADER_CHANGES: [string, (h: Headers) => void][] = [
  ['as sent', () => {}],
  ['no MCP-Protocol-Version', (h) => delete h['mcp-protocol-version']],
  ['a legacy MCP-Protocol-Version', (h) => (h['mcp-protocol-version'] = '2025-11-25')],
  ['MCP-Protocol-Version with blanks', (h) => (h['mcp-protocol-version'] = ` ${MODERN_VERSION}\t`)],
  ['no Mcp-Method', (h) => delete h['mcp-method']],
  ['another Mcp-Method', (h) => (h['mcp-method'] = 'tools/list')],
  ['Mcp-Method with blanks', (h) => (h['mcp-method'] = ' tools/call ')],
  ['no Mcp-Name', (h) => delete h['mcp-name']],
  ['another Mcp-Name', (h) => (h['mcp-name'] = 'log.search')],
  [
    'Mcp-Name in Base64',
    (h) => (h['mcp-name'] = `=?base64?${Buffer.from('log.recent').toString('base64')}?=`),
  ],
  ['a broken Base64 Mcp-Name', (h) => (h['mcp-name'] = '=?base64?***?=')],
];

const CASES = BODY_CHANGES.flatMap(([bodyLabel, changeBody]) =>
  HEADER_CHANGES.map(([headerLabel, changeHeaders]): [string, Headers, Body] => {
    const body = call();
    changeBody(body);
    // Headers follow the body's method, as a client's do; then the header change applies.
    const method = typeof body.method === 'string' ? body.method : 'tools/call';
    const headers = headersOf(method, method === 'tools/call' ? 'log.recent' : undefined);
    changeHeaders(headers);
    return [`${bodyLabel}, ${headerLabel}`, headers, body];
  }),
);

const read = (reader: typeof readMcpRequest, headers: Headers, body: Body) =>
  reader('POST', (name) => headers[name], body);

describe('readMcpRequest', () => {
  it.each(CASES)('reads %s as the SDK classifier does', (_label, headers, body) => {
    const classified = read(classifiedMcpRequest, headers, body);
    const fast = read(readMcpRequest, headers, body);
    if ('status' in classified && classified.body.error.code === -32602 && !('status' in fast)) {
      // Only an envelope the classifier refuses may pass here: the SDK's handler refuses it.
      expect(classified.status).toBe(400);
      expect(fast.era).toBe('modern');
      return;
    }
    expect(fast).toEqual(classified);
  });

  it('reads a plain modern call as its tool, and refuses a header naming another', () => {
    const body = call();
    expect(read(readMcpRequest, headersOf('tools/call', 'log.recent'), body)).toEqual({
      era: 'modern',
      messages: [{ method: 'tools/call', tool: 'log.recent' }],
      listen: false,
      // Served as an exchange: the classified message and the revision its envelope claims.
      exchange: { message: body, classification: { era: 'modern', revision: metaOf(body)[CLAIM] } },
    });
    const refused = read(readMcpRequest, headersOf('tools/call', 'log.search'), call());
    expect(refused).toMatchObject({ status: 400, body: { id: 7, error: { code: HEADER_MISMATCH } } });
  });

  it("leaves to the SDK's handler what it checks more of: resources/read's Mcp-Name, listen streams", () => {
    const readResource: Body = {
      jsonrpc: '2.0',
      id: 8,
      method: 'resources/read',
      params: { uri: 'ui://views/waterfall', _meta: { ...MODERN_META } },
    };
    const resource = read(readMcpRequest, headersOf('resources/read', 'ui://views/waterfall'), readResource);
    expect(resource).toMatchObject({ era: 'modern', messages: [{ method: 'resources/read' }] });
    expect(resource).not.toHaveProperty('exchange');
    const listen: Body = { ...readResource, method: 'subscriptions/listen', params: { _meta: MODERN_META } };
    const stream = read(readMcpRequest, headersOf('subscriptions/listen'), listen);
    expect(stream).toMatchObject({ era: 'modern', listen: true });
    expect(stream).not.toHaveProperty('exchange');
  });

  it('leaves GET and DELETE to the classifier (legacy session requests)', () => {
    for (const method of ['GET', 'DELETE'])
      expect(readMcpRequest(method, () => undefined, undefined)).toEqual({ era: 'legacy', messages: [] });
  });
});

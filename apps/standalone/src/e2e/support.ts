import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { signIngestBody } from '@svc/observability-core';
import type { SpawnedStack } from '../testing/spawned-stack';

// The HTTP calls every end-to-end test makes against a running stack. Each takes the URLs and
// credentials it needs explicitly, so a test can talk to any stack, as any token.

/** identity's internal admin API: its base URL and the internal secret. */
export interface IdentityAdmin {
  url: string;
  secret: string;
}

/** An ingest key of a project: the key id and the secret that signs ingest bodies. */
export interface IngestKey {
  key_id: string;
  secret: string;
}

export interface RestAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

export const bearer = (token: string) => `Bearer ${token}`;

/** POST /v1/tools/<tool> on the gateway, with the Authorization header given (none if undefined). */
export async function callRest(
  gatewayUrl: string,
  tool: string,
  args: unknown,
  authorization?: string,
): Promise<RestAnswer> {
  const res = await fetch(`${gatewayUrl}/v1/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(args),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: JSON.parse(text) as Record<string, unknown>,
  };
}

/**
 * The official 1.32.2 MCP client (protocol 2025-11-25, a session) connected over streamable HTTP
 * with the Authorization header given: what the MCP clients deployed today speak.
 */
export async function connectMcp(mcpUrl: string, authorization: string, name = 'e2e'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization } } }),
  );
  return client;
}

/** The MCP revision modern clients speak: no session, every request self-contained. */
export const MODERN_MCP_VERSION = '2026-07-28';
export type McpEra = 'modern' | 'legacy';
export const MCP_ERAS: readonly McpEra[] = ['modern', 'legacy'];
/** A client of either era: the e2e tests use what the two SDK majors' clients share. */
export type AnyMcpClient = Client | ModernClient;

/** The official v2 MCP client pinned to 2026-07-28 over streamable HTTP (`fetch`: e.g. a proxy's). */
export async function connectModernMcp(
  mcpUrl: string,
  authorization: string,
  name = 'e2e',
  options: { fetch?: typeof fetch } = {},
): Promise<ModernClient> {
  const client = new ModernClient(
    { name, version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_MCP_VERSION } } },
  );
  await client.connect(
    new ModernTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization } },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
  );
  return client;
}

/** A client of the era given (connectModernMcp or connectMcp). */
export function connectMcpIn(
  era: McpEra,
  mcpUrl: string,
  authorization: string,
  name = 'e2e',
): Promise<AnyMcpClient> {
  return era === 'modern'
    ? connectModernMcp(mcpUrl, authorization, name)
    : connectMcp(mcpUrl, authorization, name);
}

/** A bare MCP `initialize` POST, for probing status codes without a client. */
export function postMcpInitialize(mcpUrl: string, authorization?: string): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'probe', version: '1' },
      },
    }),
  });
}

/** A call to identity's internal admin API; a non-2xx answer throws with its status and body. */
export async function adminCall<T = Record<string, unknown>>(
  admin: IdentityAdmin,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(new URL(path, admin.url), {
    method,
    headers: { 'x-internal-secret': admin.secret, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A POST to the core signed with an ingest key, as the SDKs send it. */
export function signedPost(
  coreUrl: string,
  key: IngestKey,
  path: string,
  body: string,
  contentType = 'application/json',
): Promise<Response> {
  const ts = Math.floor(Date.now() / 1000);
  return fetch(new URL(path, coreUrl), {
    method: 'POST',
    headers: {
      'content-type': contentType,
      'x-svc-key': key.key_id,
      'x-svc-timestamp': String(ts),
      'x-svc-signature': signIngestBody(key.secret, ts, body),
    },
    body,
  });
}

/** A signed POST /ingest/v1/batch of the records given (logs, crashes, events, ...). */
export function ingestBatch(
  coreUrl: string,
  key: IngestKey,
  records: Record<string, unknown>,
): Promise<Response> {
  return signedPost(coreUrl, key, '/ingest/v1/batch', JSON.stringify(records));
}

export interface NewProject {
  project_id: string;
  token: string;
  key: IngestKey;
}

/** A new project (in the bootstrap org unless one is given) with a read token and an ingest key. */
export async function newProject(admin: IdentityAdmin, name: string, orgId?: string): Promise<NewProject> {
  const { project_id } = await adminCall<{ project_id: string }>(
    admin,
    'POST',
    '/internal/v1/admin/projects',
    {
      name,
      ...(orgId ? { org_id: orgId } : {}),
    },
  );
  const { token } = await adminCall<{ token: string }>(admin, 'POST', '/internal/v1/admin/tokens', {
    project_id,
  });
  const key = await adminCall<IngestKey>(admin, 'POST', '/internal/v1/admin/ingest-keys', { project_id });
  return { project_id, token, key };
}

/** The admin API of a stack started by spawnStack. */
export const adminOf = (stack: SpawnedStack): IdentityAdmin => ({
  url: stack.ready.urls.identity,
  secret: stack.internalSecret,
});

/**
 * A list's `next_cursor` is sealed per call (it carries its own expiry), so two calls' cursors
 * differ: compared by presence, as this marker.
 */
export function withCursorMarked(answer: Record<string, unknown>): Record<string, unknown> {
  return typeof answer.next_cursor === 'string' ? { ...answer, next_cursor: '<next_cursor>' } : answer;
}

/** One tool call over REST and over MCP; both must succeed. Returns the two structured answers. */
export async function callBoth(
  gatewayUrl: string,
  mcp: AnyMcpClient,
  authorization: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ rest: Record<string, unknown>; mcp: Record<string, unknown> }> {
  const viaRest = await callRest(gatewayUrl, tool, args, authorization);
  expect(viaRest.status).toBe(200);
  const viaMcp = await mcp.callTool({ name: tool, arguments: args });
  expect(viaMcp.isError).toBeFalsy();
  return {
    rest: withCursorMarked(viaRest.body),
    mcp: withCursorMarked(viaMcp.structuredContent as Record<string, unknown>),
  };
}

/**
 * callBoth for windowed tools: the two answers must agree apart from `window`, which moves between
 * the calls. Returns the REST answer, and the same without its window.
 */
export async function callBothAcrossWindow(
  gatewayUrl: string,
  mcp: AnyMcpClient,
  authorization: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ rest: Record<string, unknown>; withoutWindow: Record<string, unknown> }> {
  const answers = await callBoth(gatewayUrl, mcp, authorization, tool, args);
  const { window: _w1, ...viaMcp } = answers.mcp;
  const { window: _w2, ...viaRest } = answers.rest;
  expect(viaMcp).toEqual(viaRest);
  return { rest: answers.rest, withoutWindow: viaRest };
}

/** Switches a controlled capability of the stack's org on or off through identity's admin API. */
export async function setOrgCapability(
  stack: { urls: { identity: string }; orgId: string; secret: string },
  capability: 'vis_trace' | 'vis_recall' | 'vis_ai_verifier',
  enabled: boolean,
): Promise<void> {
  const res = await fetch(
    `${stack.urls.identity}/internal/v1/admin/orgs/${stack.orgId}/capabilities/${capability}`,
    {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-internal-secret': stack.secret },
      body: JSON.stringify({ enabled }),
    },
  );
  if (res.status !== 200) throw new Error(`capability ${capability}: ${res.status} ${await res.text()}`);
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { generateToken } from '@svc/auth';
import { signIngestBody } from '@svc/observability-core';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';

// Auth, isolation and audit on the real stack: real identity (PGlite), real core (chDB).

let stack: SpawnedStack;
let tokenA: string;

async function admin(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await fetch(`${stack.ready.urls.identity}${path}`, {
    method,
    headers: { 'x-internal-secret': stack.internalSecret, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function newToken(body: Record<string, unknown>): Promise<{ token: string; token_id: string }> {
  return (await admin('POST', '/internal/v1/admin/tokens', body)) as { token: string; token_id: string };
}

async function callRest(tool: string, args: unknown, authorization?: string) {
  const res = await fetch(`${stack.ready.urls.gateway}/v1/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(args),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};

/** Every authenticated route, as a function of the Authorization header. */
const ROUTES: [string, (auth?: string) => Promise<{ status: number; body: Record<string, unknown> }>][] = [
  ['POST /v1/tools/log.recent', (auth) => callRest('log.recent', {}, auth)],
  [
    'POST /mcp',
    async (auth) => {
      const res = await fetch(stack.ready.urls.mcp, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(auth ? { authorization: auth } : {}),
        },
        body: JSON.stringify(INITIALIZE),
      });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
    },
  ],
  [
    'GET /mcp',
    async (auth) => {
      const res = await fetch(stack.ready.urls.mcp, {
        headers: { accept: 'text/event-stream', ...(auth ? { authorization: auth } : {}) },
      });
      const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      return { status: res.status, body };
    },
  ],
  [
    'DELETE /mcp',
    async (auth) => {
      const res = await fetch(stack.ready.urls.mcp, {
        method: 'DELETE',
        headers: { 'mcp-session-id': 'x', ...(auth ? { authorization: auth } : {}) },
      });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
    },
  ],
];

async function expectUnauthorizedEverywhere(authorization: string | undefined) {
  for (const [route, call] of ROUTES) {
    const { status, body } = await call(authorization);
    expect({ route, status, error: body.error }).toEqual({ route, status: 401, error: 'unauthorized' });
  }
}

beforeAll(async () => {
  stack = await spawnStack({ env: { SVC_DEMO_SIZE: '0.2' } });
  tokenA = stack.ready.token!;
}, 180_000);

afterAll(async () => {
  await stack?.dispose();
});

describe('401 unauthorized on every authenticated route', () => {
  it('no header', () => expectUnauthorizedEverywhere(undefined));
  it('wrong scheme', () => expectUnauthorizedEverywhere(`Basic ${tokenA}`));
  it('malformed token', () => expectUnauthorizedEverywhere('Bearer svc_pat_short'));
  it('bad checksum', async () => {
    const last = tokenA.at(-1) === 'A' ? 'B' : 'A';
    await expectUnauthorizedEverywhere(`Bearer ${tokenA.slice(0, -1)}${last}`);
  });
  it('unknown token of valid format', () => expectUnauthorizedEverywhere(`Bearer ${generateToken()}`));

  it('expired token', async () => {
    const { token } = await newToken({ project_id: stack.ready.project_id, expires_in_seconds: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    await expectUnauthorizedEverywhere(`Bearer ${token}`);
  });

  it('revoked token: the very next call after revoke', async () => {
    const { token, token_id } = await newToken({ project_id: stack.ready.project_id });
    expect((await callRest('log.recent', { limit: 1 }, `Bearer ${token}`)).status).toBe(200);
    await admin('POST', `/internal/v1/admin/tokens/${token_id}/revoke`);
    await expectUnauthorizedEverywhere(`Bearer ${token}`);
  });

  it('revocation also ends a live MCP session on its next request', async () => {
    const { token, token_id } = await newToken({ project_id: stack.ready.project_id });
    const client = new Client({ name: 'revoked', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(stack.ready.urls.mcp), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(5);
    await admin('POST', `/internal/v1/admin/tokens/${token_id}/revoke`);
    await expect(client.listTools()).rejects.toThrow();
    await client.close().catch(() => undefined);
  });

  it('token without mcp:read', async () => {
    const { token } = await newToken({ project_id: stack.ready.project_id, scopes: ['api:read'] });
    await expectUnauthorizedEverywhere(`Bearer ${token}`);
  });

  it('token without a project', async () => {
    const { token } = await newToken({ project_id: null });
    await expectUnauthorizedEverywhere(`Bearer ${token}`);
  });

  it('open routes need no token', async () => {
    expect((await fetch(`${stack.ready.urls.gateway}/healthz`)).status).toBe(200);
    expect((await fetch(`${stack.ready.urls.gateway}/openapi.json`)).status).toBe(200);
  });
});

describe('project isolation', () => {
  const MARKER = 'zebra-unicorn-only-in-b';
  let tokenB: string;

  beforeAll(async () => {
    const org = (await admin('POST', '/internal/v1/admin/orgs', { name: 'Other org' })) as { org_id: string };
    const project = (await admin('POST', '/internal/v1/admin/projects', {
      name: 'B',
      org_id: org.org_id,
    })) as {
      project_id: string;
    };
    const key = (await admin('POST', '/internal/v1/admin/ingest-keys', {
      project_id: project.project_id,
    })) as {
      key_id: string;
      secret: string;
    };
    const now = Date.now();
    const body = JSON.stringify({
      logs: [0, 1, 2].map((i) => ({
        timestamp: now - i * 1000,
        level: 'ERROR',
        message: `${MARKER} payment declined #${i}`,
        source: 'backend',
        platform: 'b-platform',
        user_id: 'user-only-in-b',
        session_id: 'session-only-in-b',
      })),
    });
    const ts = Math.floor(now / 1000);
    const res = await fetch(`${stack.ready.urls.core}/ingest/v1/batch`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-svc-key': key.key_id,
        'x-svc-timestamp': String(ts),
        'x-svc-signature': signIngestBody(key.secret, ts, body),
      },
      body,
    });
    expect(res.status).toBe(200);
    tokenB = (await newToken({ project_id: project.project_id })).token;
  });

  it("B's token sees B's data", async () => {
    const r = await callRest('log.search', { search: MARKER }, `Bearer ${tokenB}`);
    expect((r.body.items as unknown[]).length).toBe(3);
    const everything = await callRest('log.recent', { limit: 1000 }, `Bearer ${tokenB}`);
    expect((everything.body.items as { message: string }[]).every((l) => l.message.includes(MARKER))).toBe(
      true,
    );
  });

  it("A's token never sees B's data, whichever tool it uses", async () => {
    const a = `Bearer ${tokenA}`;
    expect((await callRest('log.search', { search: MARKER }, a)).body.items).toEqual([]);
    expect((await callRest('log.by_user', { user_id: 'user-only-in-b' }, a)).body.items).toEqual([]);
    expect((await callRest('log.by_session', { session_id: 'session-only-in-b' }, a)).body.items).toEqual([]);
    const platforms = (await callRest('log.aggregate', { group_by: 'platform' }, a)).body.groups as {
      key: string;
    }[];
    expect(platforms.map((g) => g.key)).not.toContain('b-platform');
  });

  it('a project_id in the input is a 400 over REST and an isError result over MCP, never a switch', async () => {
    const r = await callRest('log.search', { search: MARKER, project_id: 'anything' }, `Bearer ${tokenA}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_input');
    const client = new Client({ name: 'probe', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(stack.ready.urls.mcp), {
        requestInit: { headers: { authorization: `Bearer ${tokenA}` } },
      }),
    );
    const m = await client.callTool({ name: 'log.search', arguments: { search: MARKER, project_id: 'x' } });
    expect(m.isError).toBe(true);
    expect(m.structuredContent).toBeUndefined();
    await client.close();
  });

  it('an unknown tool is 404 over REST and JSON-RPC -32602 over MCP', async () => {
    const r = await callRest('log.recall_trigger', {}, `Bearer ${tokenA}`);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('not_found');
    const client = new Client({ name: 'probe', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(stack.ready.urls.mcp), {
        requestInit: { headers: { authorization: `Bearer ${tokenA}` } },
      }),
    );
    await expect(client.callTool({ name: 'log.recall_trigger', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await client.close();
  });
});

describe('audit', () => {
  interface AuditRow {
    seq: number;
    tool: string;
    transport: string;
    status: string;
    token_id: string | null;
    user_id: string | null;
    org_id: string | null;
    project_id: string;
    duration_ms: number;
    request_id: string;
    params: unknown;
    id: string;
    at: string;
  }

  async function auditOf(projectId: string, afterSeq = 0): Promise<AuditRow[]> {
    const answer = (await admin(
      'GET',
      `/internal/v1/audit?project_id=${projectId}&after_seq=${afterSeq}&limit=1000`,
    )) as { items: AuditRow[] };
    return answer.items;
  }

  it('every tool call over any transport leaves exactly one record, with the DESIGN.md fields', async () => {
    const project = stack.ready.project_id;
    const before = await auditOf(project);
    const lastSeq = before.at(-1)?.seq ?? 0;
    const a = `Bearer ${tokenA}`;
    await callRest('log.recent', { limit: 2 }, a);
    await callRest('log.recent', { limit: 0 }, a);
    await callRest('log.nope', {}, a);
    const client = new Client({ name: 'audit', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(stack.ready.urls.mcp), {
        requestInit: { headers: { authorization: a } },
      }),
    );
    await client.callTool({ name: 'log.by_user', arguments: { user_id: 'u-audit' } });
    await client.listTools(); // not a tool call: no record
    await client.close();

    const added = await auditOf(project, lastSeq);
    expect(added.map((r) => [r.tool, r.transport, r.status])).toEqual([
      ['log.recent', 'rest', 'ok'],
      ['log.recent', 'rest', 'invalid_input'],
      ['log.nope', 'rest', 'not_found'],
      ['log.by_user', 'mcp', 'ok'],
    ]);
    for (const r of added) {
      expect(r).toMatchObject({
        project_id: project,
        org_id: stack.ready.org_id,
        user_id: stack.ready.user_id,
      });
      expect(r.token_id).toMatch(/^tok_/);
      expect(r.duration_ms).toBeGreaterThanOrEqual(0);
      expect(r.request_id.length).toBeGreaterThan(0);
      expect(Date.parse(r.at)).not.toBeNaN();
    }
    expect(added[3]!.params).toEqual({ user_id: 'u-audit' });
    expect(JSON.stringify(added)).not.toContain(tokenA);
    const verify = await admin('GET', `/internal/v1/audit/verify?project_id=${project}`);
    expect(verify).toMatchObject({ ok: true });
  });
});

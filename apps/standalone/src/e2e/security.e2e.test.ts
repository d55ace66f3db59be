import { generateToken } from '@svc/auth';
import { holdingsIdle } from '../testing/holdings';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import {
  expectIsolatedOn,
  foreignLogs,
  foreignRecords,
  ISOLATION_ROUTES,
  pastedToken,
} from './isolation-matrix';
import {
  adminCall,
  adminOf,
  callRest,
  connectMcp,
  ingestBatch,
  newProject,
  postMcpInitialize,
} from './support';

// Auth, isolation and audit on the real stack: real identity (PGlite), real core (chDB).

let stack: SpawnedStack;
let tokenA: string;

const admin = (method: 'GET' | 'POST', path: string, body?: unknown) =>
  adminCall(adminOf(stack), method, path, body);

async function newToken(body: Record<string, unknown>): Promise<{ token: string; token_id: string }> {
  return (await admin('POST', '/internal/v1/admin/tokens', body)) as { token: string; token_id: string };
}

const rest = (tool: string, args: unknown, authorization?: string) =>
  callRest(stack.ready.urls.gateway, tool, args, authorization);

/** Every authenticated route, as a function of the Authorization header. */
const ROUTES: [string, (auth?: string) => Promise<{ status: number; body: Record<string, unknown> }>][] = [
  ['POST /v1/tools/log.recent', (auth) => rest('log.recent', {}, auth)],
  [
    'POST /mcp',
    async (auth) => {
      const res = await postMcpInitialize(stack.ready.urls.mcp, auth);
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
}, STACK_SETUP_TIMEOUT_MS);

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
    expect((await rest('log.recent', { limit: 1 }, `Bearer ${token}`)).status).toBe(200);
    await admin('POST', `/internal/v1/admin/tokens/${token_id}/revoke`);
    await expectUnauthorizedEverywhere(`Bearer ${token}`);
  });

  it('revocation also ends a live MCP session on its next request', async () => {
    const { token, token_id } = await newToken({ project_id: stack.ready.project_id });
    const client = await connectMcp(stack.ready.urls.mcp, `Bearer ${token}`, 'revoked');
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
  const FOREIGN = foreignRecords('zebra-unicorn-b');
  const MARKER = FOREIGN.marker;
  let tokenB: string;

  beforeAll(async () => {
    const org = (await admin('POST', '/internal/v1/admin/orgs', { name: 'Other org' })) as { org_id: string };
    const project = await newProject(adminOf(stack), 'B', org.org_id);
    const res = await ingestBatch(stack.ready.urls.core, project.key, { logs: foreignLogs(FOREIGN) });
    expect(res.status).toBe(200);
    tokenB = project.token;
  });

  it.each(ISOLATION_ROUTES)(
    "%s: A's pasted token finds none of B's records with any tool, B's finds them all",
    (route) =>
      expectIsolatedOn(
        route,
        stack.ready.urls.gateway,
        { reader: pastedToken(tokenA), owner: pastedToken(tokenB) },
        FOREIGN,
      ),
  );

  it('a project_id in the input is a 400 over REST and an isError result over MCP, never a switch', async () => {
    const r = await rest('log.search', { search: MARKER, project_id: 'anything' }, `Bearer ${tokenA}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_input');
    const client = await connectMcp(stack.ready.urls.mcp, `Bearer ${tokenA}`, 'probe');
    const m = await client.callTool({ name: 'log.search', arguments: { search: MARKER, project_id: 'x' } });
    expect(m.isError).toBe(true);
    expect(m.structuredContent).toBeUndefined();
    await client.close();
  });

  it('an unknown tool is 404 over REST and JSON-RPC -32602 over MCP', async () => {
    const r = await rest('log.recall_trigger', {}, `Bearer ${tokenA}`);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('not_found');
    const client = await connectMcp(stack.ready.urls.mcp, `Bearer ${tokenA}`, 'probe');
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

  it('every tool call over any transport leaves exactly one record, with the documented audit fields', async () => {
    const project = stack.ready.project_id;
    const before = await auditOf(project);
    const lastSeq = before.at(-1)?.seq ?? 0;
    const a = `Bearer ${tokenA}`;
    await rest('log.recent', { limit: 2 }, a);
    await rest('log.recent', { limit: 0 }, a);
    await rest('log.nope', {}, a);
    const client = await connectMcp(stack.ready.urls.mcp, a, 'audit');
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

describe('after the refused, revoked and cross-tenant calls', () => {
  it('every holding gauge of the stack returns to 0', async () => {
    expect(await holdingsIdle(stack.ready.urls.metrics)).toEqual({});
  });
});

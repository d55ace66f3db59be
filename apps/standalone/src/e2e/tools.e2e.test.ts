import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { inspectorCommand, mcpCurlExample } from '@svc/client-config';
import { type DemoLog, generateDemoProject } from '@svc/demo-data';
import { allTools } from '@svc/tool-catalog';
import { entryArgs } from '../testing/entries';
import { runToEnd } from '../testing/run-to-end';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { eventually, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { counts, page } from './expected';
import {
  type AnyMcpClient,
  bearer,
  callBoth,
  callRest,
  connectMcp,
  connectModernMcp,
  MCP_ERAS,
  type McpEra,
  MODERN_MCP_VERSION,
  withCursorMarked,
} from './support';

// The whole stack as `pnpm start` runs it, driven by the official MCP SDK clients of both protocol
// eras (v2 on 2026-07-28, 1.32.2 on 2025-11-25) and by REST, with every expected answer computed
// in plain JS from the demo records that were ingested.

let stack: SpawnedStack;
let logs: DemoLog[];
let mcp: Client;
let modern: ModernClient;
let token: string;
const clientOf = (era: McpEra): AnyMcpClient => (era === 'modern' ? modern : mcp);

const rest = (tool: string, body: unknown) => callRest(stack.ready.urls.gateway, tool, body, bearer(token));

/** The answers over REST and MCP (legacy); the modern client's answer is the legacy one's. */
async function both(tool: string, args: Record<string, unknown>) {
  const answers = await callBoth(stack.ready.urls.gateway, mcp, bearer(token), tool, args);
  const viaModern = await modern.callTool({ name: tool, arguments: args });
  expect(viaModern.isError).toBeFalsy();
  const modernAnswer = withCursorMarked(viaModern.structuredContent as Record<string, unknown>);
  // An answer over a window relative to now (its hourly series shift between two calls) is
  // compared by its totals; every other answer is the same answer.
  if ('window' in answers.mcp) expect(modernAnswer.total).toEqual(answers.mcp.total);
  else expect(modernAnswer).toEqual(answers.mcp);
  return answers;
}

beforeAll(async () => {
  stack = await spawnStack();
  token = stack.ready.token!;
  const demo = stack.ready.demo!;
  logs = generateDemoProject(demo).logs;
  mcp = await connectMcp(stack.ready.urls.mcp, bearer(token));
  modern = await connectModernMcp(stack.ready.urls.mcp, bearer(token));
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await modern?.close();
  await stack?.dispose();
});

describe('pnpm start stack, end to end', () => {
  it('prints a token and writes nothing but a banner to stdout', () => {
    expect(token).toMatch(/^svc_pat_[0-9A-Za-z]{36}$/);
    expect(stack.output()).toContain(stack.ready.urls.mcp);
  });

  // The demo org has every controlled capability (switched on when the demo is seeded), and the
  // standalone runs recall and copilot: all 36 tools.
  it.each(MCP_ERAS)(
    'lists all 36 tools of the catalog over MCP (%s era), the five log tools among them',
    async (era) => {
      const { tools } = await clientOf(era).listTools();
      expect(tools).toHaveLength(36);
      expect(tools.map((t) => t.name).sort()).toEqual(allTools.map((t) => t.name).sort());
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          'log.search',
          'log.recent',
          'log.by_user',
          'log.by_session',
          'log.aggregate',
        ]),
      );
      for (const tool of tools) {
        expect(tool.annotations?.readOnlyHint).toBe(true);
        expect(JSON.stringify(tool.inputSchema)).not.toContain('project_id');
        expect(tool.outputSchema).toBeDefined();
      }
    },
  );

  // Every tool of the catalog called with its documented example, in both eras: each MCP answer
  // is what REST answers (the same result, or the same refusal when the example names something
  // the demo project does not hold).
  it.each(MCP_ERAS)(
    'calls all 36 tools with their examples over MCP (%s era), answered as REST answers',
    async (era) => {
      await callsEveryToolAsRest(clientOf(era));
    },
  );

  it.each(MCP_ERAS)(
    'lists and calls all 36 tools over stdio (%s era), answered as REST answers',
    async (era) => {
      const client = await connectStdio(era);
      try {
        // recall and copilot join once the stdio server's first probe of them answered. Each poll
        // asks the server: the v2 client would answer a repeated tools/list from its cache for the
        // list's 60 s hint, and the wait would last that long after the two had joined.
        await eventually(
          'all 36 tools listed over stdio',
          async () => (await listToolsFresh(client)).tools.length === 36,
        );
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(allTools.map((t) => t.name).sort());
        await callsEveryToolAsRest(client);
      } finally {
        await client.close();
      }
    },
  );

  // The ready-to-paste commands of the README and the console, run as a user runs them.
  it('answers the one-command 2026-07-28 MCP call with curl (no session) as REST answers', async () => {
    const endpoint = { mcpUrl: stack.ready.urls.mcp, token };
    const { stdout } = await runToEnd('sh', ['-c', mcpCurlExample(endpoint)], {
      what: 'the curl MCP example',
    });
    const data = stdout.startsWith('{') ? stdout : /^data: (.*)$/m.exec(stdout)![1]!;
    const answer = JSON.parse(data) as {
      result: { isError?: boolean; structuredContent: { total: number } };
    };
    expect(answer.result.isError).toBeFalsy();
    const viaRest = await rest('log.aggregate', { group_by: 'level' });
    expect(answer.result.structuredContent.total).toBe(viaRest.body.total);
  });

  it('lists the tools with the MCP Inspector CLI command', async () => {
    const endpoint = { mcpUrl: stack.ready.urls.mcp, token };
    const { stdout } = await runToEnd('sh', ['-c', inspectorCommand(endpoint)], {
      what: 'the MCP Inspector CLI',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    const listed = (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(listed.sort()).toEqual(allTools.map((t) => t.name).sort());
  });

  it('log.search: case-insensitive literal substring, newest first', async () => {
    const { rest: r, mcp: m } = await both('log.search', { search: 'TIMEOUT', limit: 7 });
    const expected = page(logs, (l) => l.message.toLowerCase().includes('timeout'), 7);
    expect(expected.items.length).toBeGreaterThan(0);
    expect(r).toEqual(expected);
    expect(m).toEqual(expected);
  });

  it.each(['50%', 'SAVE_50', 'shoe*', '^user_[0-9]+$', '.*', 'C:\\logs\\*.log', '{A|B}?'])(
    'log.search matches %s literally',
    async (needle) => {
      const { rest: r } = await both('log.search', { search: needle, limit: 1000 });
      expect(r).toEqual(page(logs, (l) => l.message.toLowerCase().includes(needle.toLowerCase()), 1000));
    },
  );

  it('log.search narrowed by source', async () => {
    const { rest: r } = await both('log.search', { search: 'e', source: 'device', limit: 15 });
    expect(r).toEqual(page(logs, (l) => l.source === 'device' && l.message.toLowerCase().includes('e'), 15));
  });

  it('log.recent: newest first, exact level, has_more', async () => {
    const all = await both('log.recent', {});
    expect(all.rest).toEqual(page(logs, () => true, 20));
    const errors = await both('log.recent', { level: 'ERROR', limit: 5 });
    expect(errors.rest).toEqual(page(logs, (l) => l.level === 'ERROR', 5));
    expect(errors.mcp).toEqual(errors.rest);
  });

  it('log.recent takes a level in any case and answers in the canonical one', async () => {
    for (const level of ['error', 'Warn']) {
      const { rest: r, mcp: m } = await both('log.recent', { level, limit: 5 });
      expect(r).toEqual(page(logs, (l) => l.level === level.toUpperCase(), 5));
      expect(m).toEqual(r);
    }
  });

  // A year back: the window starts before every demo record, so calls made moments apart agree.
  it('release.health takes versions comma-separated, each release as when asked alone', async () => {
    const versions = [...new Set(generateDemoProject(stack.ready.demo!).sessions.map((s) => s.app_version))];
    expect(versions.length).toBeGreaterThan(2);
    const asked = [versions[1]!, versions[0]!, 'no-such-version'];
    const text = ` ${asked[0]}, ${asked[1]},${asked[0]} ,${asked[2]}`;
    const { rest: r, mcp: m } = await both('release.health', { versions: text, days: 365 });
    const strip = ({ window: _w, ...rest }: Record<string, unknown>) => rest;
    expect(strip(m)).toEqual(strip(r));
    const alone = [];
    for (const version of asked) {
      const one = await rest('release.health', { version, days: 365 });
      expect(one.status).toBe(200);
      alone.push(...(one.body.releases as unknown[]));
    }
    expect(r.releases).toEqual(alone);
    expect((r.releases as { found: boolean }[]).map((x) => x.found)).toEqual([true, true, false]);
  });

  it('release.health says what is wrong with a version list, in sentences (REST and MCP)', async () => {
    for (const [args, expected] of [
      [{ versions: '2.4.0,,2.5.0' }, 'versions must not have an empty version'],
      [
        { versions: Array.from({ length: 11 }, (_, i) => `9.${i}`).join(',') },
        'versions must list at most 10 versions',
      ],
      [{}, 'version is required when versions is not given'],
    ] as const) {
      const r = await rest('release.health', args);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(`Invalid input for release.health: ${expected}`);
      const m = await mcp.callTool({ name: 'release.health', arguments: args });
      expect(m.isError).toBe(true);
      expect(JSON.stringify(m.content)).toContain(expected);
    }
  });

  it('log.recent by trace_id', async () => {
    const traced = logs.find((l) => l.trace_id);
    expect(traced).toBeDefined();
    const { rest: r } = await both('log.recent', { trace_id: traced!.trace_id!.toUpperCase() });
    expect(r).toEqual(page(logs, (l) => l.trace_id === traced!.trace_id, 20));
  });

  it('log.by_user: that user only, newest first', async () => {
    const perUser = new Map<string, number>();
    for (const l of logs) if (l.user_id) perUser.set(l.user_id, (perUser.get(l.user_id) ?? 0) + 1);
    const [busiest] = [...perUser.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const { rest: r, mcp: m } = await both('log.by_user', { user_id: busiest });
    expect(r).toEqual(page(logs, (l) => l.user_id === busiest, 50));
    expect(m).toEqual(r);
    const unknown = await both('log.by_user', { user_id: 'nobody-here' });
    expect(unknown.rest).toEqual({ items: [], limit: 50, has_more: false });
  });

  it('log.by_session: oldest first, limit and has_more', async () => {
    const session = logs.find((l) => l.session_id)!.session_id!;
    const n = logs.filter((l) => l.session_id === session).length;
    const { rest: r } = await both('log.by_session', { session_id: session });
    expect(r).toEqual(page(logs, (l) => l.session_id === session, 100, 'asc'));
    if (n > 1) {
      const { rest: first } = await both('log.by_session', { session_id: session, limit: 1 });
      expect(first).toEqual(page(logs, (l) => l.session_id === session, 1, 'asc'));
      expect(first.has_more).toBe(true);
    }
  });

  it.each(['level', 'platform', 'user_id'] as const)(
    'log.aggregate by %s over the last 24 hours',
    async (groupBy) => {
      const { rest: r, mcp: m } = await both('log.aggregate', { group_by: groupBy });
      const window = r.window as { from: string; to: string };
      expect(Date.parse(window.to) - Date.parse(window.from)).toBe(24 * 3600 * 1000);
      const expected = counts(logs, (l) => l[groupBy] ?? null, window);
      expect(r.total).toBe(expected.total);
      const groups = r.groups as { key: string | null; count: number }[];
      expect(new Map(groups.map((g) => [g.key, g.count]))).toEqual(expected.groups);
      for (let i = 1; i < groups.length; i++)
        expect(groups[i - 1]!.count).toBeGreaterThanOrEqual(groups[i]!.count);
      expect(m.total).toBe(r.total);
    },
  );

  it('rejects out-of-range limits and unknown fields with 400 (REST) and isError (MCP)', async () => {
    for (const args of [{ limit: 0 }, { limit: 1001 }, { level: 'LOUD' }, { nope: 1 }]) {
      const r = await rest('log.recent', args);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_input');
      const m = await mcp.callTool({ name: 'log.recent', arguments: args });
      expect(m.isError).toBe(true);
    }
  });

  it('serves /openapi.json without auth, listing exactly the tools of deployed backends', async () => {
    const res = await fetch(`${stack.ready.urls.gateway}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    // Every backend is deployed and healthy here: all 36 tools.
    expect(Object.keys(doc.paths).sort()).toEqual(allTools.map((t) => `/v1/tools/${t.name}`).sort());
    expect(JSON.stringify(doc)).not.toContain('project_id');
  });

  it('serves the committed contract (docs/openapi.json) for every tool it publishes', async () => {
    const served = (await (await fetch(`${stack.ready.urls.gateway}/openapi.json`)).json()) as Contract;
    const committed = JSON.parse(readFileSync(COMMITTED_CONTRACT, 'utf8')) as Contract;
    expect(served.info).toEqual(committed.info);
    for (const [path, operation] of Object.entries(served.paths)) {
      expect(operation).toEqual(committed.paths[path]);
      const key = path.replace('/v1/tools/', '').replace(/\./g, '_');
      for (const io of ['input', 'output'])
        expect(served.components.schemas[`${key}_${io}`]).toEqual(
          committed.components.schemas[`${key}_${io}`],
        );
    }
  });

  it('advises only tools it publishes, in MCP instructions (both eras) and the OpenAPI description', async () => {
    const served = (await (await fetch(`${stack.ready.urls.gateway}/openapi.json`)).json()) as Contract;
    expect(modern.getInstructions()).toBe(mcp.getInstructions());
    const advice = [mcp.getInstructions() ?? '', served.info.description];
    const named = advice.flatMap((text) => text.match(/\b[a-z]+\.[a-z_]+\b/g) ?? []);
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(served.paths).toHaveProperty([`/v1/tools/${name}`]);
  });
});

async function callsEveryToolAsRest(client: AnyMcpClient): Promise<void> {
  for (const tool of allTools) {
    const args = tool.example as Record<string, unknown>;
    const viaRest = await rest(tool.name, args);
    const viaMcp = await client.callTool({ name: tool.name, arguments: args });
    const text = (viaMcp.content as { type: string; text: string }[])[0]!.text;
    if (viaRest.status === 200) {
      expect({ tool: tool.name, isError: viaMcp.isError ?? false }).toEqual({
        tool: tool.name,
        isError: false,
      });
      expect(Object.keys(viaMcp.structuredContent as object).sort()).toEqual(
        Object.keys(viaRest.body).sort(),
      );
    } else {
      expect({ tool: tool.name, isError: viaMcp.isError }).toEqual({ tool: tool.name, isError: true });
      expect((JSON.parse(text) as { error: string }).error).toBe(viaRest.body.error);
    }
  }
}

/** tools/list from the server itself: the v2 client's cache skipped (the 1.x client has none). */
function listToolsFresh(client: AnyMcpClient) {
  return client instanceof ModernClient
    ? client.listTools(undefined, { cacheMode: 'refresh' })
    : client.listTools();
}

/** The stdio server as its own process over the spawned stack's services, for its demo project. */
async function connectStdio(era: McpEra): Promise<AnyMcpClient> {
  const { urls, project_id, org_id } = stack.ready;
  const params = {
    command: process.execPath,
    args: entryArgs('stdio'),
    env: {
      PATH: process.env.PATH ?? '',
      SVC_MCP_STDIO_TRUSTED_LOCAL: '1',
      SVC_MCP_PROJECT_ID: project_id,
      SVC_MCP_ORG_ID: org_id,
      SVC_INTERNAL_SECRET: stack.internalSecret,
      SVC_OBSERVABILITY_ENDPOINT: urls.core,
      SVC_IDENTITY_INTERNAL_URL: urls.identity,
      SVC_RECALL_ENDPOINT: urls.recall,
      SVC_COPILOT_ENDPOINT: urls.copilot,
      SVC_LOG_LEVEL: 'warn',
    },
    stderr: 'pipe' as const,
  };
  if (era === 'legacy') {
    const client = new Client({ name: 'stdio-e2e', version: '1' });
    await client.connect(new StdioClientTransport(params));
    return client;
  }
  const client = new ModernClient(
    { name: 'stdio-e2e', version: '1' },
    { versionNegotiation: { mode: { pin: MODERN_MCP_VERSION } } },
  );
  await client.connect(new ModernStdioTransport(params));
  return client;
}

interface Contract {
  info: { description: string };
  paths: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
}

const COMMITTED_CONTRACT = fileURLToPath(new URL('../../../../docs/openapi.json', import.meta.url));

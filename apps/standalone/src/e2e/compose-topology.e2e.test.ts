import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hasPostgresBinaries } from '@svc/postgres/testing';
import { type ComposeStack, startComposeStack } from '../testing/compose-stack';
import { bearer, callBoth, callRest, connectMcp, ingestBatch } from './support';

// docker-compose.yml's topology, each service its own process started with its compose command and
// the environment compose gives its container, talking over real HTTP on loopback, set up as the
// self-hosting guide says (deploy/make-env.sh, then `svc bootstrap --token --ingest-key`), then the
// smoke a self-hoster would run: tools over MCP and REST, ingest, the optional groups, a revoke.
//
// What differs from Docker, because this machine has no container engine: processes instead of
// containers, 127.0.0.1 and free ports instead of the compose network, temp dirs instead of volumes,
// a throwaway PostgreSQL 15 cluster instead of the postgres image, and, since no ClickHouse server
// is at hand, the core on embedded chDB (from the repository's bundle; its image has no chDB).
// With SVC_TEST_CLICKHOUSE_URL the core runs on that server instead, as in docker-compose.yml.

const CLICKHOUSE_URL = process.env.SVC_TEST_CLICKHOUSE_URL?.trim() || undefined;

let stack: ComposeStack;
let boot: {
  org_id: string;
  project_id: string;
  user_id: string;
  token: { token: string; token_id: string };
  ingest_key: { key_id: string; secret: string; dsn: string };
};
let gateway: string;
let mcp: Client;
/** Tool calls that passed the gateway's authentication: each leaves one audit record. */
let auditedCalls = 0;

async function svcJson<T>(args: string[]): Promise<T> {
  const run = await stack.svc([...args, '--json']);
  if (run.code !== 0) throw new Error(`svc ${args.join(' ')}: exit ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

// Without PostgreSQL's binaries the pg-path tests of this repository skip; under CI they must run.
const describeWithPostgres = hasPostgresBinaries || process.env.CI ? describe : describe.skip;

describeWithPostgres(
  `the compose topology on loopback (core on ${CLICKHOUSE_URL ? 'a ClickHouse server' : 'embedded chDB'})`,
  () => {
    beforeAll(async () => {
      stack = await startComposeStack({ url: CLICKHOUSE_URL });
      gateway = stack.url('http-gateway', 8092);
      boot = await svcJson(['bootstrap', '--token', '--ingest-key', '--email', 'owner@compose.test']);
      mcp = await connectMcp(`${gateway}/mcp`, bearer(boot.token.token));
    }, 420_000);

    afterAll(async () => {
      await mcp?.close().catch(() => undefined);
      await stack?.dispose();
    }, 60_000);

    it('bootstraps a fresh stack in one command: org, project, user, token and ingest key', () => {
      expect(boot).toMatchObject({
        org_id: expect.stringMatching(/^org_/),
        project_id: expect.stringMatching(/^prj_/),
        token: { token: expect.stringMatching(/^svc_pat_/) },
      });
      // The DSN names the ingest address identity was given (SVC_PUBLIC_INGEST_URL, else the core's).
      expect(new URL(boot.ingest_key.dsn).host).toBe(
        new URL(stack.env('identity').SVC_OBSERVABILITY_ENDPOINT!).host,
      );
      expect(stack.env('identity').SVC_IDENTITY_DATABASE_URL).toMatch(
        /^postgres:\/\/svc:\w+@127\.0\.0\.1:\d+\/identity$/,
      );
      expect(stack.env('recall').SVC_RECALL_DATABASE_URL).toMatch(/\/recall$/);
    });

    it('lists the tools over MCP and serves the OpenAPI document', async () => {
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['log.search', 'log.aggregate', 'crash.stats']),
      );
      const openapi = await fetch(`${gateway}/openapi.json`);
      expect(openapi.status).toBe(200);
      expect(Object.keys(((await openapi.json()) as { paths: object }).paths)).toContain(
        '/v1/tools/log.search',
      );
    });

    it('ingests a signed batch at the core and finds it over REST and MCP alike', async () => {
      const marker = `compose-${Date.now()}`;
      const now = Date.now();
      const logs = [0, 1, 2].map((i) => ({
        timestamp: new Date(now - i * 1000).toISOString(),
        level: i === 0 ? 'ERROR' : 'INFO',
        message: `${marker} line ${i}`,
        source: 'backend',
        user_id: 'u_compose',
      }));
      const crash = {
        event_id: `${marker}-crash`,
        timestamp: new Date(now).toISOString(),
        error_type: 'TypeError',
        message: 'x is undefined',
        frames: [],
        breadcrumbs: [],
        platform: 'web',
        app_version: '1.0.0',
        device_os: 'linux',
        user_id: 'u_compose',
      };
      const res = await ingestBatch(stack.url('observability-core', 8080), boot.ingest_key, {
        logs,
        crashes: [crash],
      });
      expect({ status: res.status, answer: await res.json() }).toMatchObject({
        status: 200,
        answer: { accepted: { logs: 3, crashes: 1 } },
      });

      auditedCalls += 2;
      const { rest, mcp: viaMcp } = await callBoth(gateway, mcp, bearer(boot.token.token), 'log.search', {
        search: marker,
      });
      const { window: _a, ...restItems } = rest;
      const { window: _b, ...mcpItems } = viaMcp;
      expect(mcpItems).toEqual(restItems);
      // Newest first: the order the records were made in, from their own timestamps.
      expect((rest.items as { message: string }[]).map((l) => l.message)).toEqual(logs.map((l) => l.message));
    });

    it('serves the recall and verify groups once the org has them: recall on PostgreSQL, copilot over the core', async () => {
      for (const capability of ['vis_recall', 'vis_ai_verifier'])
        await svcJson(['capability', 'set', '--org', boot.org_id, capability, 'on']);
      const auth = bearer(boot.token.token);
      auditedCalls += 2;
      const files = await callRest(gateway, 'log.list_files', {}, auth);
      expect(files.status).toBe(200);
      expect(files.body.items).toEqual([]);
      const verdict = await callRest(gateway, 'verify.run', { query: 'user u_compose crashed' }, auth);
      expect(verdict.status).toBe(200);
      expect(verdict.body).toMatchObject({ verdict: 'supported', evidence: [{ tool: 'user.detail' }] });
    });

    it('revokes the token: the very next call over REST and MCP is refused', async () => {
      await svcJson(['token', 'revoke', boot.token.token_id]);
      const refused = await callRest(
        gateway,
        'log.aggregate',
        { group_by: 'level' },
        bearer(boot.token.token),
      );
      expect(refused.status).toBe(401);
      await expect(mcp.listTools()).rejects.toThrow();
    });

    it('keeps an intact audit chain, anchored in the checkpoint log on identity’s volume', async () => {
      const verified = await svcJson<{ ok: boolean; projects: { project_id: string; checked: number }[] }>([
        'audit',
        'verify',
      ]);
      expect(verified.ok).toBe(true);
      expect(verified.projects.find((p) => p.project_id === boot.project_id)?.checked).toBe(auditedCalls);
    });
  },
);

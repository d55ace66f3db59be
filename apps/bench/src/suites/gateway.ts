import { hasPostgresBinaries, startThrowawayCluster } from '@svc/postgres/testing';
import { type LoadResult, load } from '../load';
import { freePort, type Service, startFixture } from '../services';
import {
  mcpSession,
  SECRET,
  seedProject,
  startCore,
  startGateway,
  startIdentity,
  tempDir,
  toolCall,
} from './deployment';
import { benchSelfTrace } from './self-trace';

// The gateway's own cost, told apart from the core's (docs/architecture.md, "Performance targets"):
// the whole gateway path (auth, rate limit, visibility, validation, backend call, output check,
// audit, binding) in front of a backend that does no work, against that backend called directly
// and a bare express handler; then REST and MCP in front of the real core; identity on PGlite and
// on PostgreSQL; every process's peak RSS; last, self-tracing on against off (self-trace.ts).

export interface Measured {
  name: string;
  connections: number;
  result: LoadResult;
}

export interface Check {
  name: string;
  target: string;
  measured: string;
  ok: boolean;
}

export interface GatewayReport {
  measured: Measured[];
  checks: Check[];
  rss: Record<string, number>;
  notes: string[];
}

const ARGS = { limit: 1 };
const BODY = JSON.stringify(ARGS);
const JSON_HEADERS = { 'content-type': 'application/json' };

export async function benchGateway(durationMs: number, levels: number[] = [16, 64]): Promise<GatewayReport> {
  const dir = tempDir();
  const services: Service[] = [];
  const measured: Measured[] = [];
  const notes: string[] = [];
  const keep = <T extends Service>(s: T) => {
    services.push(s);
    return s;
  };
  try {
    const identity = await startIdentity(dir.path);
    keep(identity.service);
    const core = keep(await startCore(dir.path, identity.service.url));
    const trivial = keep(await startFixture('trivial-backend.mjs', await freePort()));
    const bare = keep(await startFixture('bare-express.mjs', await freePort()));
    const gwTrivial = keep(await startGateway(identity.service.url, trivial.url));
    const gwStateless = keep(
      await startGateway(identity.service.url, trivial.url, { SVC_MCP_STATELESS: '1' }),
    );
    const gwCore = keep(await startGateway(identity.service.url, core.url));
    const { projectId, token } = await seedProject(identity, core);
    const auth = { ...JSON_HEADERS, authorization: `Bearer ${token}` };
    const internal = { ...JSON_HEADERS, 'x-internal-secret': SECRET };

    const run = async (
      name: string,
      connections: number,
      url: string,
      request: (n: number) => { headers: Record<string, string>; body: string },
    ) => {
      const result = await load(url, { connections, durationMs, request });
      measured.push({ name, connections, result });
      return result;
    };
    for (const c of levels) {
      await run('bare express handler', c, `${bare.url}/v1/tools/log.recent`, () => ({
        headers: JSON_HEADERS,
        body: BODY,
      }));
      await run(
        'trivial backend, direct',
        c,
        `${trivial.url}/internal/v1/projects/${projectId}/tools/log.recent`,
        () => ({ headers: internal, body: BODY }),
      );
      await run('gateway REST -> trivial backend', c, `${gwTrivial.url}/v1/tools/log.recent`, () => ({
        headers: auth,
        body: BODY,
      }));
      const session = await mcpSession(gwTrivial.url, token);
      await run('gateway MCP session -> trivial backend', c, `${gwTrivial.url}/mcp`, (n) => ({
        headers: session,
        body: toolCall(n + 1, 'log.recent', ARGS),
      }));
      const stateless = {
        ...auth,
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      };
      await run('gateway MCP stateless -> trivial backend', c, `${gwStateless.url}/mcp`, (n) => ({
        headers: stateless,
        body: toolCall(n + 1, 'log.recent', ARGS),
      }));
      await run(
        'core direct, log.recent',
        c,
        `${core.url}/internal/v1/projects/${projectId}/tools/log.recent`,
        () => ({ headers: internal, body: BODY }),
      );
      await run('gateway REST -> core, log.recent', c, `${gwCore.url}/v1/tools/log.recent`, () => ({
        headers: auth,
        body: BODY,
      }));
      const coreSession = await mcpSession(gwCore.url, token);
      await run('gateway MCP session -> core, log.recent', c, `${gwCore.url}/mcp`, (n) => ({
        headers: coreSession,
        body: toolCall(n + 1, 'log.recent', ARGS),
      }));
    }
    const rss: Record<string, number> = {
      'identity (PGlite)': identity.service.peakRssMb(),
      core: core.peakRssMb(),
      'gateway -> trivial': gwTrivial.peakRssMb(),
      'gateway stateless': gwStateless.peakRssMb(),
      'gateway -> core': gwCore.peakRssMb(),
    };

    // Identity on PostgreSQL: the same gateway path in front of the trivial backend.
    if (hasPostgresBinaries) {
      const cluster = await startThrowawayCluster();
      try {
        const pgIdentity = await startIdentity(tempDir().path, cluster.url);
        keep(pgIdentity.service);
        const boot = await pgIdentity.admin('/bootstrap', {
          org_name: 'B',
          project_name: 'B',
          user_email: 'b@example.com',
        });
        const pgToken = (await pgIdentity.admin('/tokens', { project_id: boot.project_id })).token!;
        const gwPg = keep(await startGateway(pgIdentity.service.url, trivial.url));
        for (const c of levels) {
          await run(
            'gateway REST -> trivial, identity on PostgreSQL',
            c,
            `${gwPg.url}/v1/tools/log.recent`,
            () => ({
              headers: { ...JSON_HEADERS, authorization: `Bearer ${pgToken}` },
              body: BODY,
            }),
          );
        }
        rss['identity (PostgreSQL)'] = pgIdentity.service.peakRssMb();
        rss['gateway, identity on PostgreSQL'] = gwPg.peakRssMb();
      } finally {
        await cluster.stop();
      }
    } else {
      notes.push('identity on PostgreSQL: skipped (no PostgreSQL 15 binaries)');
    }
    // Last, so every figure above is taken with the same processes as without it.
    notes.push(
      ...(await benchSelfTrace(
        {
          identity,
          dir: dir.path,
          trivialUrl: trivial.url,
          gatewayToTrivial: gwTrivial,
          gatewayToCore: gwCore,
          token,
        },
        durationMs,
        keep,
      )),
    );
    return { measured, checks: checksOf(measured, rss), rss, notes };
  } finally {
    for (const s of services.reverse()) await s.stop().catch(() => {});
    dir.remove();
  }
}

function find(measured: Measured[], name: string, connections: number): LoadResult {
  const m = measured.find((x) => x.name === name && x.connections === connections);
  if (!m) throw new Error(`not measured: ${name} at ${connections}`);
  return m.result;
}

function best(measured: Measured[], name: string): number {
  return Math.max(...measured.filter((m) => m.name === name).map((m) => m.result.requestsPerSecond));
}

function checksOf(measured: Measured[], rss: Record<string, number>): Check[] {
  const gw = find(measured, 'gateway REST -> trivial backend', 16);
  const direct = find(measured, 'trivial backend, direct', 16);
  const mcp = find(measured, 'gateway MCP session -> trivial backend', 16);
  const addedP50 = gw.latency.p50 - direct.latency.p50;
  const addedP99 = gw.latency.p99 - direct.latency.p99;
  const gwRps = best(measured, 'gateway REST -> trivial backend');
  const coreRps = best(measured, 'core direct, log.recent');
  const bareRps = best(measured, 'bare express handler');
  const realGw = find(measured, 'gateway REST -> core, log.recent', 16).requestsPerSecond;
  const realCore = find(measured, 'core direct, log.recent', 16).requestsPerSecond;
  const gatewayRss = Math.max(
    ...Object.entries(rss)
      .filter(([k]) => k.startsWith('gateway'))
      .map(([, v]) => v),
  );
  const errors = measured.reduce((n, m) => n + m.result.errors, 0);
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  return [
    {
      name: 'added p50 over the backend (16 connections)',
      target: '<= 2 ms',
      measured: ms(addedP50),
      ok: addedP50 <= 2,
    },
    {
      name: 'added p99 over the backend (16 connections)',
      target: '<= 10 ms',
      measured: ms(addedP99),
      ok: addedP99 <= 10,
    },
    {
      name: 'gateway path throughput vs the core’s log.recent',
      target: '>= 10x',
      measured: `${(gwRps / coreRps).toFixed(1)}x (${gwRps.toFixed(0)} vs ${coreRps.toFixed(0)} req/s)`,
      ok: gwRps >= 10 * coreRps,
    },
    {
      name: 'gateway path throughput vs a bare express handler',
      target: '>= 0.5x',
      measured: `${(gwRps / bareRps).toFixed(2)}x (${gwRps.toFixed(0)} vs ${bareRps.toFixed(0)} req/s)`,
      ok: gwRps >= 0.5 * bareRps,
    },
    {
      name: 'a real tool through the gateway vs the core direct (16)',
      target: '>= 90%',
      measured: `${((100 * realGw) / realCore).toFixed(0)}%`,
      ok: realGw >= 0.9 * realCore,
    },
    {
      name: 'MCP p50 - REST p50 (16 connections)',
      target: '<= 5 ms',
      measured: ms(mcp.latency.p50 - gw.latency.p50),
      ok: mcp.latency.p50 - gw.latency.p50 <= 5,
    },
    {
      name: 'gateway peak RSS under load',
      target: '<= 150 MB',
      measured: `${gatewayRss.toFixed(0)} MB`,
      ok: gatewayRss <= 150,
    },
    {
      name: 'identity (PGlite) peak RSS under load',
      target: '<= 300 MB',
      measured: `${rss['identity (PGlite)']!.toFixed(0)} MB`,
      ok: rss['identity (PGlite)']! <= 300,
    },
    { name: 'errors (any answer but 200)', target: '0', measured: String(errors), ok: errors === 0 },
  ];
}

import { randomBytes } from 'node:crypto';
import { generateToken } from '@svc/auth';
import { load } from '../load';
import type { Service } from '../services';
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
import type { Check } from './gateway';

// A bounded soak (loopback only): 64 connections for a minute over a mix of tools, REST and MCP,
// 1% of calls with tokens that do not exist, and one of the two real tokens revoked half-way.
// Expected: no answer but 200, except 401 for the bad tokens and for the revoked token from the
// moment its revoke returned; exactly one audit record per call that reached a tool; every
// process's memory flat once warm.

const MIX: [string, unknown][] = [
  ['log.recent', { limit: 5 }],
  ['log.aggregate', { group_by: 'level' }],
  ['log.search', { search: 'served', limit: 5 }],
  ['log.by_user', { user_id: 'u1', limit: 5 }],
  ['crash.recent', { limit: 5 }],
  ['track.stats', { days: 1 }],
];

export interface SoakReport {
  calls: number;
  requestsPerSecond: number;
  statuses: Record<number, number>;
  unexpected: number;
  auditRecords: number;
  auditExpected: number;
  chainOk: boolean;
  revokeMs: number;
  rss: Record<string, number[]>;
  checks: Check[];
}

/**
 * Tokens nobody issued: half fail the offline format check (refused without asking identity), half
 * are well formed and unknown (identity says inactive; such answers are never cached).
 */
const badToken = (n: number) =>
  n % 200 === 0 ? generateToken() : `svc_pat_${randomBytes(27).toString('base64url').slice(0, 36)}`;

export async function benchSoak(durationMs = 60_000, connections = 64): Promise<SoakReport> {
  const dir = tempDir();
  const services: Service[] = [];
  try {
    const identity = await startIdentity(dir.path);
    services.push(identity.service);
    const core = await startCore(dir.path, identity.service.url);
    services.push(core);
    const gateway = await startGateway(identity.service.url, core.url);
    services.push(gateway);
    const seeded = await seedProject(identity, core);
    const revoked = await identity.admin('/tokens', { project_id: seeded.projectId });
    const tokens = { keep: seeded.token, revoke: revoked.token! };
    const sessions = {
      keep: await mcpSession(gateway.url, tokens.keep),
      revoke: await mcpSession(gateway.url, tokens.revoke),
    };
    const auditBefore = await auditCount(identity.service.url, seeded.projectId);

    // What each request was, to judge its answer.
    const kinds: ('keep' | 'revoke' | 'bad')[] = [];
    const startedAt: number[] = [];
    let revokeReturnedAt = Number.POSITIVE_INFINITY;
    let revokeMs = 0;
    const rss: Record<string, number[]> = { identity: [], core: [], gateway: [] };
    const sample = setInterval(() => {
      rss.identity!.push(identity.service.rssMb());
      rss.core!.push(core.rssMb());
      rss.gateway!.push(gateway.rssMb());
    }, 5_000);
    const revokeTimer = setTimeout(async () => {
      const t0 = Date.now();
      await identity.admin(`/tokens/${revoked.token_id}/revoke`, {});
      revokeReturnedAt = Date.now();
      revokeMs = revokeReturnedAt - t0;
    }, durationMs / 2);

    const result = await load(`${gateway.url}/v1/tools/log.recent`, {
      connections,
      durationMs,
      request: (n) => {
        const kind = n % 100 === 0 ? 'bad' : n % 2 === 0 ? 'keep' : 'revoke';
        kinds[n] = kind;
        startedAt[n] = Date.now();
        const [tool, args] = MIX[n % MIX.length]!;
        if (kind === 'bad' || n % 3 === 0) {
          const token = kind === 'bad' ? badToken(n) : tokens[kind];
          return {
            path: `/v1/tools/${tool}`,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify(args),
          };
        }
        return { path: '/mcp', headers: sessions[kind], body: toolCall(n + 1, tool, args) };
      },
      expected: (status, n) => {
        const kind = kinds[n]!;
        if (kind === 'bad') return status === 401;
        if (kind === 'keep') return status === 200;
        if (startedAt[n]! > revokeReturnedAt) return status === 401;
        return status === 200 || status === 401; // concurrent with the revoke: either is right
      },
    });
    clearInterval(sample);
    clearTimeout(revokeTimer);
    const audit = await auditCount(identity.service.url, seeded.projectId);
    const auditRecords = audit.checked - auditBefore.checked;
    const auditExpected = result.statuses[200] ?? 0;
    const warm = (series: number[]) => series[Math.min(2, series.length - 1)] ?? 0;
    const growth = Object.fromEntries(
      Object.entries(rss).map(([k, v]) => [k, (Math.max(...v.slice(2)) - warm(v)) / Math.max(1, warm(v))]),
    );
    const checks: Check[] = [
      {
        name: 'answers other than 200 and the expected 401s',
        target: '0',
        measured: String(result.errors),
        ok: result.errors === 0,
      },
      {
        name: 'audit records = calls that reached a tool',
        target: `${auditExpected}`,
        measured: `${auditRecords} (chain ${audit.ok ? 'intact' : 'BROKEN'})`,
        ok: auditRecords === auditExpected && audit.ok,
      },
      ...Object.entries(growth).map(([k, g]) => ({
        name: `${k} RSS growth after warm-up (15 s)`,
        target: '<= 10%',
        measured: `${(100 * g).toFixed(1)}% (${rss[k]!.map((v) => v.toFixed(0)).join(' ')} MB)`,
        ok: g <= 0.1,
      })),
    ];
    return {
      calls: Object.values(result.statuses).reduce((a, b) => a + b, 0),
      requestsPerSecond: result.requestsPerSecond,
      statuses: result.statuses,
      unexpected: result.errors,
      auditRecords,
      auditExpected,
      chainOk: audit.ok,
      revokeMs,
      rss,
      checks,
    };
  } finally {
    for (const s of services.reverse()) await s.stop().catch(() => {});
    dir.remove();
  }
}

async function auditCount(identityUrl: string, projectId: string): Promise<{ ok: boolean; checked: number }> {
  const res = await fetch(`${identityUrl}/internal/v1/audit/verify?project_id=${projectId}`, {
    headers: { 'x-internal-secret': SECRET },
  });
  return (await res.json()) as { ok: boolean; checked: number };
}
